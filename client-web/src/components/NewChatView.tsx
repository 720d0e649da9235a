/**
 * A new chat with an employee before its first message: nothing is stored on the server yet.
 * The first message (typed or a starter prompt) creates the conversation and sends it; the
 * shell then opens the stored conversation.
 *
 * An employee not among the enabled ones is looked up: a disabled one (admins see those) shows
 * its name, its model and that it is disabled, with the composer off; an unknown one says so
 * with a way back.
 */
import { useEffect, useState } from "react";
import { api, asApiError, type ApiError } from "../api/client";
import type { CommandClaim, EmployeeOut } from "../api/types";
import { reveal } from "../cards/reveal";
import { useAppData } from "../state/appData";
import { routeHash } from "../state/route";
import { useCommandList } from "../state/useCommands";
import { Avatar } from "./Avatar";
import { Composer } from "./Composer";
import { Greeting } from "./ConversationView";
import { Loading, Problem, problemWords } from "./PageStates";

interface Props {
  employee: string;
  offline: boolean | null;
  busy: boolean;
  /** Creates the conversation, sends the message and opens it; rejects when nothing was sent. */
  onStart: (employee: string, content: string, command?: CommandClaim) => Promise<void>;
}

export function NewChatView(props: Props) {
  const { employees } = useAppData();
  const employee = employees[props.employee];
  return employee ? <ReadyChat {...props} employee={employee} /> : <UnlistedChat slug={props.employee} offline={props.offline} />;
}

/** The employee's model as a badge: its own model by name, else "Offline model" when the
 * server's model is the built-in one; nothing while unknown. */
function ModelBadge({ employee, offline }: { employee: EmployeeOut | undefined; offline: boolean | null }) {
  if (employee?.model) {
    return (
      <span className="badge" data-testid="model-badge" title="The model that answers for this employee">
        {reveal(employee.model)}
      </span>
    );
  }
  if (!offline) return null;
  return (
    <span className="badge offline" data-testid="offline-badge" title="Replies come from the built-in offline model">
      Offline model
    </span>
  );
}

/** The employee's avatar, name and title, as the conversation header shows them. */
function EmployeeLine({ employee }: { employee: EmployeeOut }) {
  return (
    <p className="employee-line" data-testid="conversation-employee" data-slug={employee.slug}>
      <Avatar avatar={employee.avatar} name={employee.name} size="sm" />
      <strong className="employee-name">{reveal(employee.name)}</strong>
      {employee.title && <span className="muted">{reveal(employee.title)}</span>}
    </p>
  );
}

/** An employee the enabled list lacks: read it (admins get a disabled one), then say what it is. */
function UnlistedChat({ slug, offline }: { slug: string; offline: boolean | null }) {
  const [found, setFound] = useState<EmployeeOut | "missing" | ApiError | null>(null);
  useEffect(() => {
    let live = true;
    api.employee(slug).then(
      (e) => live && setFound(e),
      (e: unknown) => {
        const err = asApiError(e);
        if (live) setFound(err.status === 404 ? "missing" : err);
      },
    );
    return () => {
      live = false;
    };
  }, [slug]);
  const back = (
    <a href={routeHash({ kind: "home" })} data-testid="new-chat-back">
      Choose an AI employee
    </a>
  );
  if (found === null) return <main className="conversation new-chat pad"><Loading /></main>;
  if (found === "missing") {
    return (
      <main className="conversation new-chat" data-testid="new-conversation-unknown" data-employee={slug}>
        <section className="page-problem pad" role="alert">
          <h1 data-testid="conversation-title">No AI employee called “{reveal(slug)}”</h1>
          <p>Check the address, or start a conversation with someone from the list. {back}</p>
        </section>
      </main>
    );
  }
  if (!("slug" in found)) {
    return (
      <main className="conversation new-chat">
        <Problem {...problemWords(found, "This AI employee could not be loaded")} testId="new-conversation-error" />
      </main>
    );
  }
  return (
    <main className="conversation new-chat" data-testid="new-conversation" data-employee={slug} data-disabled={found.disabled}>
      <header className="conversation-header">
        <div className="conversation-heading">
          <h1 data-testid="conversation-title">New conversation</h1>
          <EmployeeLine employee={found} />
        </div>
        <div className="header-badges">
          <ModelBadge employee={found} offline={offline} />
        </div>
      </header>
      <div className="messages">
        <p className="empty notice" role="status" data-testid="employee-disabled">
          {reveal(found.name)} is disabled, so it cannot start a conversation. An admin can turn it back on in Admin. {back}
        </p>
      </div>
      <Composer disabled running={false} commands={[]} employeeName={reveal(found.name)} onSend={() => Promise.resolve()} onCancel={() => {}} />
    </main>
  );
}

function ReadyChat({ employee, offline, busy, onStart }: Omit<Props, "employee"> & { employee: EmployeeOut }) {
  const slug = employee.slug;
  const { commands, known: commandsKnown } = useCommandList(slug);
  return (
    <main className="conversation new-chat" data-testid="new-conversation" data-employee={slug}>
      <header className="conversation-header">
        <div className="conversation-heading">
          <h1 data-testid="conversation-title">New conversation</h1>
          <EmployeeLine employee={employee} />
        </div>
        <div className="header-badges">
          <ModelBadge employee={employee} offline={offline} />
        </div>
      </header>
      <div className="messages">
        <div className="empty">
          <Greeting employee={employee} />
        </div>
      </div>
      {employee.starter_prompts.length > 0 && (
        <div className="starters" aria-label="Starter prompts">
          {employee.starter_prompts.map((p) => (
            <button key={p} type="button" data-testid="starter-prompt" disabled={busy} onClick={() => void onStart(slug, p).catch(() => {})}>
              {reveal(p)}
            </button>
          ))}
        </div>
      )}
      <Composer disabled={busy} running={false} commands={commands} commandsKnown={commandsKnown} employeeName={reveal(employee.name)} onSend={(content, command) => onStart(slug, content, command)} onCancel={() => {}} />
    </main>
  );
}
