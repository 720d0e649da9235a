/** The composer's `/` menu: a listbox driven from the textarea (aria-activedescendant). */
import { reveal } from "../cards/reveal";
import type { SlashCommandOut } from "../api/types";

interface Props {
  id: string;
  commands: SlashCommandOut[];
  active: number;
  onPick: (command: SlashCommandOut) => void;
  onHover: (index: number) => void;
}

export function slashOptionId(menuId: string, index: number): string {
  return `${menuId}-option-${index}`;
}

export function SlashMenu({ id, commands, active, onPick, onHover }: Props) {
  return (
    <ul className="slash-menu" id={id} role="listbox" aria-label="Commands" data-testid="slash-menu">
      {commands.map((c, i) => (
        <li
          key={`${c.skill}/${c.command}`}
          id={slashOptionId(id, i)}
          role="option"
          aria-selected={i === active}
          className={i === active ? "slash-item active" : "slash-item"}
          data-testid="slash-item"
          data-command={c.command}
          data-skill={c.skill}
          // Keep the focus in the textarea.
          onMouseDown={(e) => e.preventDefault()}
          onMouseEnter={() => onHover(i)}
          onClick={() => onPick(c)}
        >
          <code className="slash-command">/{c.command}</code>
          <span className="slash-title">{reveal(c.title)}</span>
          <span className="tag">{reveal(c.skill)}</span>
          {c.description && <span className="slash-desc muted small">{reveal(c.description)}</span>}
        </li>
      ))}
    </ul>
  );
}
