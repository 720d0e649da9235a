/** Pinned and available skills as checkboxes; "*" (all skills) makes every loaded skill available. */
import { reveal } from "../cards/reveal";
import type { SkillOut } from "../api/types";
import { ALL_SKILLS, skillNames, toggled, type Draft } from "./draft";

interface Props {
  skills: SkillOut[];
  draft: Pick<Draft, "pinned_skills" | "available_skills">;
  disabled: boolean;
  onChange: (change: Pick<Draft, "pinned_skills" | "available_skills">) => void;
}

export function SkillChecklist({ skills, draft, disabled, onChange }: Props) {
  const loaded = skills.filter((s) => s.status === "loaded").map((s) => s.name);
  const names = skillNames(loaded, draft);
  const all = draft.available_skills.includes(ALL_SKILLS);
  const note = (name: string) => (loaded.includes(name) ? null : <span className="tag danger">not loaded</span>);

  return (
    <div className="skill-checklists">
      <fieldset data-testid="pinned-skills">
        <legend>Pinned skills</legend>
        <p className="muted small">Always active: their instructions and tools are in every turn.</p>
        {names.map((name) => (
          <label key={name} className="check">
            <input
              type="checkbox"
              value={name}
              checked={draft.pinned_skills.includes(name)}
              disabled={disabled}
              onChange={(e) => onChange({ ...draft, pinned_skills: toggled(draft.pinned_skills, name, e.target.checked) })}
            />
            {reveal(name)} {note(name)}
          </label>
        ))}
      </fieldset>
      <fieldset data-testid="available-skills">
        <legend>Available skills</legend>
        <p className="muted small">The model may load these when it needs them; pinned skills always are.</p>
        <label className="check">
          <input
            type="checkbox"
            value={ALL_SKILLS}
            checked={all}
            disabled={disabled}
            onChange={(e) => onChange({ ...draft, available_skills: toggled(draft.available_skills, ALL_SKILLS, e.target.checked) })}
          />
          All skills (<code>*</code>)
        </label>
        {names.map((name) => {
          const pinned = draft.pinned_skills.includes(name);
          return (
            <label key={name} className="check">
              <input
                type="checkbox"
                value={name}
                checked={all || pinned || draft.available_skills.includes(name)}
                disabled={disabled || all || pinned}
                onChange={(e) => onChange({ ...draft, available_skills: toggled(draft.available_skills, name, e.target.checked) })}
              />
              {reveal(name)} {pinned && <span className="muted small">(pinned)</span>} {note(name)}
            </label>
          );
        })}
      </fieldset>
    </div>
  );
}
