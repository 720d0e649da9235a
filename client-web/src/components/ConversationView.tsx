/**
 * One open conversation: loads it, follows its stream, and hosts the messages and composer,
 * plus the progress around them (thinking, "Ada is waiting for you", connection), the
 * operation log, and the keyboard path to waiting decisions (announced; Alt+J jumps).
 */
import { reveal } from "../cards/reveal";
import { useEffect, useMemo, useRef, useState } from "react";
import { ApiError, api } from "../api/client";
import type { CommandClaim, EmployeeOut } from "../api/types";
import { Loading, Problem, problemWords } from "./PageStates";
import { ActionsBanner } from "../permissions/ActionsBanner";
import { useAppData } from "../state/appData";
import { announceActivity } from "../state/broadcast";
import { ConversationActionsContext, type ConversationActions } from "../state/conversationActions";
import { allToolCalls, isThinking, waitingCalls } from "../state/reducer";
import { useCommandList } from "../state/useCommands";
import { useConversation } from "../state/useConversation";
import { Avatar } from "./Avatar";
import { Composer } from "./Composer";
import { ConversationHeader } from "./ConversationHeader";
import { MessageList } from "./MessageList";
import { OperationLog } from "./OperationLog";
import { RunErrorBanner } from "./RunErrorBanner";
import { WaitingBanner, focusCall } from "./WaitingBanner";
import { toolTitle } from "../state/appData";

interface Props {
  id: string;
  /** A tool call to bring into view once loaded (from the Approvals view). */
  focusCallId?: string;
  offline: boolean | null;
  /** The title from the conversation list (refreshed as runs end; the detail is read once). */
  listTitle?: string | null;
  /** Called when the conversation's status changes (the list shows status and title). */
  onChanged: () => void;
  /** Created a moment ago in this tab: replay its stream from the start (see useConversation). */
  fresh?: boolean;
  /** The number of calls waiting for the person here, whenever it changes. */
  onWaiting?: (id: string, waiting: number) => void;
}

const LOG_KEY = "interlock.opLogOpen";

export function ConversationView({ id, focusCallId, offline, listTitle, fresh = false, onChanged, onWaiting }: Props) {
  const { state, dispatch, refresh, loadError, stream, connected } = useConversation(id, fresh);
  const { employees, tools } = useAppData();
  const { commands, known: commandsKnown } = useCommandList(state.employee);
  const actions = useMemo<ConversationActions>(
    () => ({ dispatch, refresh, owned: true, connected }),
    [dispatch, refresh, connected],
  );
  const [logOpen, setLogOpen] = useState(() => readFlag(LOG_KEY));
  // What the announcer says, kept as parts: the employee's name is filled in when rendered,
  // so a conversation opened before the employees load still names them once they do.
  const [announced, setAnnounced] = useState<{ titles: string; count: number } | null>(null);
  const composerRef = useRef<HTMLDivElement>(null);

  const waiting = useMemo(() => waitingCalls(state), [state]);
  const waitingKey = waiting.map((c) => c.id).join(",");
  const employee = state.employee ? employees[state.employee] : undefined;
  const name = reveal(employee?.name ?? "Your employee");

  const lastStatus = useRef(state.status);
  useEffect(() => {
    if (lastStatus.current !== state.status) onChanged();
    lastStatus.current = state.status;
  }, [state.status, onChanged]);

  // Deleted (in another tab, or by another device): the sidebar and badges drop it.
  useEffect(() => {
    if (state.deleted) onChanged();
  }, [state.deleted, onChanged]);

  // Tell the shell (tab title, sidebar) and the other tabs when the waiting set changes;
  // announce a new waiting call; and move focus on when the focused card was decided.
  const seen = useRef<Set<string> | null>(null);
  useEffect(() => {
    if (!state.id) return;
    onWaiting?.(id, waiting.length);
    const before = seen.current;
    const now = new Set(waiting.map((c) => c.id));
    seen.current = now;
    if (before !== null) announceActivity({ kind: "conversation", id });
    // New waiting calls are announced (on opening the conversation, every waiting one).
    const added = waiting.filter((c) => !before?.has(c.id));
    if (added.length > 0) {
      const titles = added.map((c) => toolTitle(tools, c.name, c.title)).join(", ");
      setAnnounced({ titles, count: added.length });
    } else if (now.size === 0) {
      setAnnounced(null); // nothing waits any more: the last announcement would be stale
    }
    const gone = before ? [...before].filter((cid) => !now.has(cid)) : [];
    if (gone.length > 0 && focusWasLost(gone)) {
      const next = waiting[0];
      requestAnimationFrame(() => {
        if (next && focusCall(next.id)) return;
        focusComposer.current = true; // once the composer is enabled again (the run resumes)
        focusComposerIfReady();
      });
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [waitingKey, state.id]);

  // After the last decision, focus goes to the composer as soon as it can take it.
  const focusComposer = useRef(false);
  const focusComposerIfReady = () => {
    if (!focusComposer.current) return;
    const box = composerRef.current?.querySelector<HTMLTextAreaElement>("textarea:not(:disabled)");
    if (!box) return;
    const active = document.activeElement;
    if (active && active !== box && active !== document.body && !(active as HTMLButtonElement).disabled) {
      focusComposer.current = false; // the person moved on: leave their focus alone
      return;
    }
    box.focus();
    // The resumed run disables the composer for a while (focus drops): keep the wish until
    // the conversation is idle again.
    if (stateRef.current.status === "idle") focusComposer.current = false;
  };
  useEffect(() => {
    if (state.status !== "running") requestAnimationFrame(focusComposerIfReady);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [state.status]);

  // Open at a given call (from the Approvals view) once it is on the page and its card is
  // live (cards are disabled until the stream connects, and a disabled button takes no focus).
  const focused = useRef<string | null>(null);
  useEffect(() => {
    // Once connected: until then the card offers no decision to focus.
    if (!focusCallId || focused.current === focusCallId || !state.toolCalls[focusCallId] || !connected) return;
    focused.current = focusCallId;
    requestAnimationFrame(() => focusCall(focusCallId));
  }, [focusCallId, state.toolCalls, connected]);

  // Alt+J: jump to the first waiting decision.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey && !e.ctrlKey && !e.metaKey && (e.key === "j" || e.key === "J" || e.code === "KeyJ")) {
        const first = waitingCalls(stateRef.current)[0];
        if (first) {
          e.preventDefault();
          focusCall(first.id);
        }
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  const stateRef = useRef(state);
  stateRef.current = state;

  if (!state.id) {
    return (
      <main className="conversation" data-testid="conversation-loading">
        {loadError ? (
          <Problem {...problemWords(loadError, "This conversation could not be opened")} onAction={() => void refresh()} testId="conversation-load-error" />
        ) : (
          <Loading what="Loading the conversation…" className="muted pad" />
        )}
      </main>
    );
  }

  if (state.deleted) {
    return (
      <main className="conversation" data-testid="conversation-deleted" data-conversation-id={id}>
        <p className="pad" role="status">
          This conversation was deleted. Its messages and the decisions it was waiting for are gone.
        </p>
      </main>
    );
  }

  const send = async (content: string, command?: CommandClaim) => {
    try {
      const { run_id } = await api.postMessage(id, content, command);
      dispatch({ type: "local.sent", runId: run_id });
    } catch (e) {
      if (e instanceof ApiError && e.status === 409) void refresh();
      throw e;
    }
  };
  const cancel = () => {
    api.cancel(id).catch(() => void refresh());
  };

  const running = state.status === "running";
  const toggleLog = () => {
    setLogOpen(!logOpen);
    writeFlag(LOG_KEY, !logOpen);
  };
  return (
    <ConversationActionsContext.Provider value={actions}>
      <main
        className="conversation"
        data-testid="conversation"
        data-conversation-id={id}
        data-status={state.status}
        data-connected={connected ? "true" : "false"}
      >
        <ConversationHeader
          title={listTitle || state.title}
          state={state}
          employee={employee}
          offline={offline ?? state.model?.offline ?? false}
          stream={stream}
          logOpen={logOpen}
          logCount={allToolCalls(state).length}
          onToggleLog={toggleLog}
        />
        {logOpen && <OperationLog state={state} />}
        <MessageList state={state} empty={employee ? <Greeting employee={employee} /> : "Say hello to start."} />
        {state.messages.length === 0 && employee && employee.starter_prompts.length > 0 && !running && (
          <div className="starters" aria-label="Starter prompts">
            {employee.starter_prompts.map((p) => (
              <button key={p} type="button" data-testid="starter-prompt" onClick={() => void send(p).catch(() => {})}>
                {reveal(p)}
              </button>
            ))}
          </div>
        )}
        <div className="progress-line" aria-live="polite">
          {isThinking(state) && (
            <p className="thinking" data-testid="thinking">
              <span className="spinner" aria-hidden="true" />
              {name} is thinking…
            </p>
          )}
          {!connected && stream !== "connecting" && (
            <p className="offline-note" data-testid="disconnected-note">
              Connection lost. Reconnecting… Decisions are paused until it is back.
            </p>
          )}
        </div>
        <div className="visually-hidden" aria-live="assertive" data-testid="announcer">
          {announced &&
            `${name} is waiting for your decision: ${announced.titles}. Press Alt+J to go to ${announced.count === 1 ? "it" : "the first one"}.`}
        </div>
        <RunErrorBanner runError={state.runError} onDismiss={() => dispatch({ type: "local.dismissError" })} />
        {loadError && (
          <p className="error pad" role="alert">
            {loadError.message}
          </p>
        )}
        {state.employee && <ActionsBanner employee={state.employee} version={state.status} />}
        {state.status === "paused" && (
          <WaitingBanner name={name} count={waiting.length} onJump={() => waiting[0] && focusCall(waiting[0].id)} />
        )}
        {state.channel === "mcp" && (
          <p className="mcp-record-note muted small pad" data-testid="mcp-record-note">
            MCP clients (desktop assistants, editors) asked {name} to run these tools for you. Decide the waiting
            calls here; to chat with {name}, start a new conversation.
          </p>
        )}
        <div ref={composerRef} hidden={state.channel === "mcp"}>
          <Composer
            disabled={running}
            running={running}
            commands={commands} commandsKnown={commandsKnown}
            employeeName={employee && reveal(employee.name)}
            waiting={waiting.length}
            connected={connected}
            onSend={send}
            onCancel={cancel}
          />
        </div>
      </main>
    </ConversationActionsContext.Provider>
  );
}

/**
 * After a decision the card's buttons disable or go and focus falls to the page: true when
 * focus is on nothing, on a disabled control, or still inside a card that was just decided.
 * Focus the person placed elsewhere (typing in the composer, another card) is left alone.
 */
function focusWasLost(decided: string[]): boolean {
  const active = document.activeElement as HTMLElement | null;
  const row = active?.closest<HTMLElement>('[data-testid="tool-call"]');
  return (
    !active ||
    active === document.body ||
    (active as HTMLButtonElement).disabled === true ||
    (row != null && decided.includes(row.dataset.toolCallId ?? ""))
  );
}

function readFlag(key: string): boolean {
  try {
    return localStorage.getItem(key) === "1";
  } catch {
    return false;
  }
}

function writeFlag(key: string, value: boolean) {
  try {
    localStorage.setItem(key, value ? "1" : "0");
  } catch {
    /* private mode: the panel just does not remember */
  }
}

export function Greeting({ employee }: { employee: EmployeeOut }) {
  return (
    <div className="greeting" data-testid="employee-greeting">
      <Avatar avatar={employee.avatar} name={employee.name} size="lg" />
      <p>{reveal(employee.greeting || `Say hello to ${employee.name}.`)}</p>
    </div>
  );
}
