import type { StreamState } from "../api/events";
import type { EmployeeOut } from "../api/types";
import { reveal } from "../cards/reveal";
import type { ConversationState } from "../state/reducer";
import { Avatar } from "./Avatar";

interface Props {
  title: string | null;
  state: ConversationState;
  /** The conversation's employee, when it is known (disabled ones are not listed). */
  employee: EmployeeOut | undefined;
  offline: boolean;
  stream: StreamState;
  /** The operation log panel is open; null hides the toggle (a new chat has no log). */
  logOpen?: boolean | null;
  logCount?: number;
  onToggleLog?: () => void;
}

const STATUS_WORDS: Record<string, string> = {
  idle: "idle",
  running: "working",
  paused: "waiting for you",
};

const STREAM_WORDS: Record<StreamState, string> = {
  connecting: "Connecting…",
  open: "Connected",
  reconnecting: "Reconnecting…",
  closed: "Disconnected",
};

export function ConversationHeader({ title, state, employee, offline, stream, logOpen, logCount = 0, onToggleLog }: Props) {
  return (
    <header className="conversation-header">
      <div className="conversation-heading">
        <h1 data-testid="conversation-title">{reveal(title || "New conversation")}</h1>
        <p className="employee-line" data-testid="conversation-employee" data-slug={state.employee ?? undefined}>
          {employee ? (
            <>
              <Avatar avatar={employee.avatar} name={employee.name} size="sm" />
              <strong className="employee-name">{reveal(employee.name)}</strong>
              {employee.title && <span className="muted">{reveal(employee.title)}</span>}
            </>
          ) : (
            <span className="muted">{reveal(state.employee ?? "")}</span>
          )}
        </p>
      </div>
      <div className="header-badges">
        <span
          className={`connection connection-${stream}`}
          data-testid="connection"
          data-state={stream}
          role="status"
          title={stream === "open" ? "Live updates are on" : "Decisions are paused until the connection is back"}
        >
          <span className="connection-dot" aria-hidden="true" />
          {STREAM_WORDS[stream]}
        </span>
        <span className={`badge status-${state.status}`} data-testid="conversation-status" data-status={state.status}>
          {STATUS_WORDS[state.status] ?? state.status}
        </span>
        {offline && (
          <span className="badge offline" data-testid="offline-badge" title="Replies come from the built-in offline model">
            Offline model
          </span>
        )}
        {logOpen != null && onToggleLog && (
          <button type="button" className="small" aria-expanded={logOpen} data-testid="log-toggle" onClick={onToggleLog}>
            {logOpen ? "Hide" : "Show"} operation log{logCount ? ` (${logCount})` : ""}
          </button>
        )}
      </div>
    </header>
  );
}
