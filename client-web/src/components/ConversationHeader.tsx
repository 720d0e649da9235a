import type { ConversationState } from "../state/reducer";
import type { StreamState } from "../api/events";
import { useAppData } from "../state/appData";

interface Props {
  title: string | null;
  state: ConversationState;
  offline: boolean;
  stream: StreamState;
}

export function ConversationHeader({ title, state, offline, stream }: Props) {
  const { employees } = useAppData();
  const employee = state.employee ? employees[state.employee] : undefined;
  return (
    <header className="conversation-header">
      <div>
        <h1 data-testid="conversation-title">{title || "New conversation"}</h1>
        <p className="muted small" data-testid="conversation-employee">
          {employee ? `${employee.name}${employee.title ? ` · ${employee.title}` : ""}` : state.employee}
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
