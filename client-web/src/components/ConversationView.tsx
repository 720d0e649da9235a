/** One open conversation: loads it, follows its stream, and hosts the messages and composer. */
import { useEffect, useMemo, useRef } from "react";
import { ApiError, api } from "../api/client";
import type { CommandClaim, EmployeeOut } from "../api/types";
import { useAppData } from "../state/appData";
import { ConversationActionsContext, type ConversationActions } from "../state/conversationActions";
import { useCommands } from "../state/useCommands";
import { useConversation } from "../state/useConversation";
import { Avatar } from "./Avatar";
import { Composer } from "./Composer";
import { ConversationHeader } from "./ConversationHeader";
import { MessageList } from "./MessageList";

interface Props {
  id: string;
  offline: boolean | null;
  /** The title from the conversation list (refreshed as runs end; the detail is read once). */
  listTitle?: string | null;
  /** Called when the conversation's status changes (the list shows status and title). */
  onChanged: () => void;
}

export function ConversationView({ id, offline, listTitle, onChanged }: Props) {
  const { state, dispatch, refresh, loadError, stream } = useConversation(id);
  const { employees } = useAppData();
  const commands = useCommands(state.employee);
  const actions = useMemo<ConversationActions>(() => ({ dispatch, refresh, owned: true }), [dispatch, refresh]);

  const lastStatus = useRef(state.status);
  useEffect(() => {
    if (lastStatus.current !== state.status) onChanged();
    lastStatus.current = state.status;
  }, [state.status, onChanged]);

  if (!state.id) {
    return (
      <main className="conversation">
        {loadError ? (
          <p className="error pad" role="alert">
            {loadError.message}
          </p>
        ) : (
          <p className="muted pad">Loading…</p>
        )}
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

  const employee = state.employee ? employees[state.employee] : undefined;
  const running = state.status === "running";
  return (
    <ConversationActionsContext.Provider value={actions}>
      <main className="conversation" data-testid="conversation" data-conversation-id={id} data-status={state.status}>
        <ConversationHeader
          title={listTitle || state.title}
          state={state}
          employee={employee}
          offline={offline ?? state.model?.offline ?? false}
          stream={stream}
        />
        <MessageList state={state} empty={employee ? <Greeting employee={employee} /> : "Say hello to start."} />
        {state.messages.length === 0 && employee && employee.starter_prompts.length > 0 && !running && (
          <div className="starters" aria-label="Starter prompts">
            {employee.starter_prompts.map((p) => (
              <button key={p} type="button" data-testid="starter-prompt" onClick={() => void send(p).catch(() => {})}>
                {p}
              </button>
            ))}
          </div>
        )}
        {state.runError && (
          <div className="run-error" role="alert" data-testid="run-error">
            <span>
              <code>{state.runError.error.code}</code> {state.runError.error.message}
            </span>
            <button type="button" className="link" onClick={() => dispatch({ type: "local.dismissError" })}>
              Dismiss
            </button>
          </div>
        )}
        {loadError && (
          <p className="error pad" role="alert">
            {loadError.message}
          </p>
        )}
        <Composer disabled={running} running={running} commands={commands} onSend={send} onCancel={cancel} />
      </main>
    </ConversationActionsContext.Provider>
  );
}

function Greeting({ employee }: { employee: EmployeeOut }) {
  return (
    <div className="greeting" data-testid="employee-greeting">
      <Avatar avatar={employee.avatar} name={employee.name} size="lg" />
      <p>{employee.greeting || `Say hello to ${employee.name}.`}</p>
    </div>
  );
}
