import type { ConversationSummary } from "../api/types";
import { isAdmin, useAppData } from "../state/appData";

interface Props {
  conversations: ConversationSummary[];
  activeId: string | null;
  adminActive: boolean;
  /** Opens the employee picker. */
  onNew: () => void;
  onOpen: (id: string) => void;
}

export function Sidebar({ conversations, activeId, adminActive, onNew, onOpen }: Props) {
  const { employees, me } = useAppData();
  return (
    <nav className="sidebar" aria-label="Conversations">
      <div className="sidebar-head">
        <span className="brand">Interlock</span>
        <button type="button" className="primary" data-testid="new-chat" onClick={onNew}>
          New chat
        </button>
      </div>
      <ul className="conversation-list">
        {conversations.map((c) => (
          <li key={c.id}>
            <button
              type="button"
              className={c.id === activeId ? "conversation-link active" : "conversation-link"}
              aria-current={c.id === activeId ? "page" : undefined}
              data-testid="conversation-item"
              data-conversation-id={c.id}
              onClick={() => onOpen(c.id)}
            >
              <span className="conversation-title" title={c.title || undefined}>{c.title || "New conversation"}</span>
              <span className="conversation-meta">
                <EmployeeName name={(c.employee && employees[c.employee]?.name) || c.employee} />
                {c.status !== "idle" && <span className={`badge status-${c.status}`}>{c.status}</span>}
              </span>
            </button>
          </li>
        ))}
        {conversations.length === 0 && <li className="muted small pad">No conversations yet.</li>}
      </ul>
      {isAdmin(me) && (
        <div className="sidebar-foot">
          <a href="#/admin" className={adminActive ? "nav-link active" : "nav-link"} aria-current={adminActive ? "page" : undefined} data-testid="admin-link">
            Admin: employees and skills
          </a>
        </div>
      )}
    </nav>
  );
}

/** The conversation's employee; a long name is cut with an ellipsis (full name on hover). */
function EmployeeName({ name }: { name: string | null | undefined }) {
  return (
    <span className="conversation-employee" title={name || undefined}>
      {name}
    </span>
  );
}
