/** Who to talk to: one card per employee; choosing one (or one of its starter prompts) starts a chat. */
import { reveal } from "../cards/reveal";
import { useId } from "react";
import type { EmployeeOut } from "../api/types";
import { Avatar } from "./Avatar";
import { Loading } from "./PageStates";

interface Props {
  /** null while loading. */
  employees: EmployeeOut[] | null;
  /** A conversation is being created: every choice is disabled. */
  busy: boolean;
  /** Start a conversation with `slug`, sending `prompt` first when given. */
  onStart: (slug: string, prompt?: string) => void;
}

export function EmployeePicker({ employees, busy, onStart }: Props) {
  const headingId = useId();
  return (
    <section className="employee-picker" data-testid="employee-picker" aria-labelledby={headingId} aria-busy={busy}>
      <h2 id={headingId}>Who would you like to talk to?</h2>
      {employees == null ? (
        <Loading />
      ) : employees.length === 0 ? (
        <p className="muted">No employees are available.</p>
      ) : (
        <ul className="employee-grid">
          {employees.map((e) => (
            <EmployeeOption key={e.slug} employee={e} busy={busy} onStart={onStart} />
          ))}
        </ul>
      )}
    </section>
  );
}

function EmployeeOption({ employee: e, busy, onStart }: { employee: EmployeeOut; busy: boolean; onStart: Props["onStart"] }) {
  const aboutId = useId();
  return (
    <li className="employee-option" data-testid="employee-option" data-slug={e.slug}>
      <button
        type="button"
        className="employee-choose"
        data-testid="employee-choose"
        disabled={busy}
        aria-describedby={e.about ? aboutId : undefined}
        onClick={() => onStart(e.slug)}
      >
        <Avatar avatar={e.avatar} name={e.name} size="lg" />
        <span className="employee-who">
          <span className="employee-name">{reveal(e.name)}</span>
          {e.title && <span className="muted small">{reveal(e.title)}</span>}
        </span>
      </button>
      {e.about && (
        <p className="employee-about" id={aboutId}>
          {reveal(e.about)}
        </p>
      )}
      {e.starter_prompts.length > 0 && (
        <div className="starters" role="group" aria-label={`Start with ${reveal(e.name)} by asking`}>
          {e.starter_prompts.map((p) => (
            <button key={p} type="button" data-testid="starter-prompt" disabled={busy} onClick={() => onStart(e.slug, p)}>
              {reveal(p)}
            </button>
          ))}
        </div>
      )}
    </li>
  );
}
