/** The conversation's messages, tool call rows under their assistant message, and the live draft. */
import { useEffect, useMemo, useRef, type ReactNode } from "react";
import type { MessageOut, ToolCallOut } from "../api/types";
import { cutShort, orphanToolCalls, toolCallsOf, toolMessagesByCall, type ConversationState } from "../state/reducer";
import { BatchBar } from "../cards/batch/BatchBar";
import { charCount, reveal } from "../cards/reveal";
import { FoldedText, needsFold } from "./FoldedText";
import { Markdown } from "./Markdown";
import { ToolCallRow } from "./ToolCallRow";

/** `empty`: what an empty conversation shows (the employee's greeting). */
export function MessageList({ state, empty }: { state: ConversationState; empty?: ReactNode }) {
  const toolMessages = useMemo(() => toolMessagesByCall(state), [state]);
  const orphans = orphanToolCalls(state);
  const drafts = Object.entries(state.drafts).filter(([, text]) => text.length > 0);
  const visible = state.messages.filter((m) => m.role !== "tool");
  const boxRef = useRef<HTMLDivElement>(null);
  const stick = useRef(true); // follow new content while the reader is at the bottom

  useEffect(() => {
    const box = boxRef.current;
    if (box && stick.current) box.scrollTop = box.scrollHeight;
  }, [state.messages, state.drafts, state.toolCalls]);

  return (
    <div
      className="messages"
      ref={boxRef}
      onScroll={(e) => {
        const el = e.currentTarget;
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
      }}
    >
      {visible.length === 0 && drafts.length === 0 && empty && <div className="empty">{empty}</div>}
      {visible.map((m) => (
        <Message
          key={String(m.id)}
          message={m}
          calls={toolCallsOf(state, m.id)}
          toolMessages={toolMessages}
          cut={cutShort(state, m)}
        />
      ))}
      {orphans.length > 0 && (
        <div className="message assistant">
          <ToolCalls calls={orphans} toolMessages={toolMessages} />
        </div>
      )}
      {drafts.map(([runId, text]) => (
        <div key={`draft:${runId}`} className="message assistant streaming" data-testid="draft" data-run-id={runId}>
          <DraftText text={text} />
          <span className="cursor" aria-hidden="true" />
        </div>
      ))}
    </div>
  );
}

export function Message({
  message,
  calls,
  toolMessages,
  cut = null,
}: {
  message: MessageOut;
  calls: ToolCallOut[];
  toolMessages: Record<string, MessageOut>;
  /** This reply's run was stopped (by the person, or by the server stopping): it ends where
   * it was cut. */
  cut?: "stopped" | "restarted" | null;
}) {
  const isUser = message.role === "user";
  return (
    <div className={`message ${message.role}`} data-testid="message" data-role={message.role} data-message-id={String(message.id)}>
      {needsFold(message.content) ? (
        <FoldedText
          text={message.content}
          title={isUser ? "Your message" : "The reply"}
          fileName={`message-${String(message.id)}.txt`}
          renderPreview={(preview) => (isUser ? <p className="plain">{reveal(preview)}</p> : <Markdown text={preview} />)}
        />
      ) : isUser ? (
        <p className="plain">{reveal(message.content)}</p>
      ) : (
        message.content && <Markdown text={message.content} />
      )}
      {calls.length > 0 && <ToolCalls calls={calls} toolMessages={toolMessages} />}
      {cut === "stopped" && (
        <p className="stopped-mark small muted" data-testid="stopped">
          Stopped
        </p>
      )}
      {cut === "restarted" && (
        <p className="stopped-mark small muted" data-testid="restarted">
          Cut off: the server stopped while this reply was being written.
        </p>
      )}
    </div>
  );
}

function ToolCalls({ calls, toolMessages }: { calls: ToolCallOut[]; toolMessages: Record<string, MessageOut> }) {
  return (
    <div className="tool-calls">
      <BatchBar calls={calls} />
      {calls.map((c) => (
        <ToolCallRow key={c.id} call={c} toolMessage={toolMessages[c.id]} />
      ))}
    </div>
  );
}

/** Past this size a streaming draft shows only its tail, as plain text (cheap per token). */
const DRAFT_TAIL = 20_000;

/**
 * The reply being streamed: Markdown while short; a long one (say 1 MB) shows its last 20,000
 * characters as plain text until it is stored, so each token does not re-parse the whole text.
 */
function DraftText({ text }: { text: string }) {
  if (text.length <= DRAFT_TAIL) return <Markdown text={text} />;
  return (
    <>
      <p className="muted small" data-testid="draft-size">
        {charCount(text).toLocaleString()} characters so far; the latest are shown.
      </p>
      <p className="plain draft-tail">{reveal(text.slice(-DRAFT_TAIL))}</p>
    </>
  );
}
