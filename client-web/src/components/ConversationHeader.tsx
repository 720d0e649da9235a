import type { ConversationState } from "../state/reducer";
import type { StreamState } from "../api/events";
import type { EmployeeOut } from "../api/types";
import { Avatar } from "./Avatar";

interface Props {
  title: string | null;
  state: ConversationState;
  /** The conversation's employee, when it is known (disabled ones are not listed). */
  employee: EmployeeOut | undefined;
  offline: boolean;
  stream: StreamState;
}

export function ConversationHeader({ title, state, employee, offline, stream }: Props) {
  return (
    <header className="conversation-header">
      <div className="conversation-heading">
        <h1 data-testid="conversation-title">{title || "New conversation"}</h1>
        <p className="employee-line" data-testid="conversation-employee" data-slug={state.employee ?? undefined}>
          {employee ? (
            <>
              <Avatar avatar={employee.avatar} name={employee.name} size="sm" />
              <strong className="employee-name">{employee.name}</strong>
              {employee.title && <span className="muted">{employee.title}</span>}
            </>
          ) : (
            <span className="muted">{state.employee}</span>
          )}
        </p>
      </div>
      <div className="header-badges">
        {stream === "reconnecting" && <span className="badge warn">Reconnecting…</span>}
        <span className={`badge status-${state.status}`} data-testid="conversation-status">
          {state.status}
        </span>
        {offline && (
          <span className="badge offline" data-testid="offline-badge" title="Replies come from the built-in offline model">
            Offline model
          </span>
        )}
      </div>
    </header>
  );
}
