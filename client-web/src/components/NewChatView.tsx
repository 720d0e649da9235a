/**
 * A new chat with an employee before its first message: nothing is stored on the server yet.
 * The first message (typed or a starter prompt) creates the conversation and sends it; the
 * shell then opens the stored conversation.
 */
import type { CommandClaim } from "../api/types";
import { useAppData } from "../state/appData";
import { useCommandList } from "../state/useCommands";
import { Avatar } from "./Avatar";
import { Composer } from "./Composer";
import { Greeting } from "./ConversationView";

interface Props {
  employee: string;
  offline: boolean | null;
  busy: boolean;
  /** Creates the conversation, sends the message and opens it; rejects when nothing was sent. */
  onStart: (employee: string, content: string, command?: CommandClaim) => Promise<void>;
}

export function NewChatView({ employee: slug, offline, busy, onStart }: Props) {
  const { employees } = useAppData();
  const employee = employees[slug];
  const { commands, known: commandsKnown } = useCommandList(slug);
  return (
    <main className="conversation new-chat" data-testid="new-conversation" data-employee={slug}>
      <header className="conversation-header">
        <div className="conversation-heading">
          <h1 data-testid="conversation-title">New conversation</h1>
          <p className="employee-line" data-testid="conversation-employee" data-slug={slug}>
            {employee ? (
              <>
                <Avatar avatar={employee.avatar} name={employee.name} size="sm" />
                <strong className="employee-name">{employee.name}</strong>
                {employee.title && <span className="muted">{employee.title}</span>}
              </>
            ) : (
              <span className="muted">{slug}</span>
            )}
          </p>
        </div>
        <div className="header-badges">
          {offline && (
            <span className="badge offline" data-testid="offline-badge" title="Replies come from the built-in offline model">
              Offline model
            </span>
          )}
        </div>
      </header>
      <div className="messages">
        <div className="empty">{employee ? <Greeting employee={employee} /> : "Say hello to start."}</div>
      </div>
      {employee && employee.starter_prompts.length > 0 && (
        <div className="starters" aria-label="Starter prompts">
          {employee.starter_prompts.map((p) => (
            <button key={p} type="button" data-testid="starter-prompt" disabled={busy} onClick={() => void onStart(slug, p).catch(() => {})}>
              {p}
            </button>
          ))}
        </div>
      )}
      <Composer disabled={busy} running={false} commands={commands} commandsKnown={commandsKnown} employeeName={employee?.name} onSend={(content, command) => onStart(slug, content, command)} onCancel={() => {}} />
    </main>
  );
}
