/**
 * The operation log: every tool call of the conversation, oldest first (newest last), one
 * line each: time, what the call does as its card says it ("Add a note: buy bread"), status
 * in words, who decided, result summary. A row opens to the args as labelled fields and the
 * full result (cut at 10,000 characters). Text only, never HTML; never a skill's instructions.
 */
import { useId, useMemo, useState } from "react";
import type { MessageOut, ToolCallOut } from "../api/types";
import { ArgFields } from "../cards/fields/ArgFields";
import { reveal } from "../cards/reveal";
import { useAppData } from "../state/appData";
import { callSummary, clipDetail, decidedBy, resultSummary, resultText, timeOfDay } from "../state/opLog";
import { statusWords } from "../cards/status/status";
import { allToolCalls, toolMessagesByCall, type ConversationState } from "../state/reducer";

export function OperationLog({ state }: { state: ConversationState }) {
  const calls = useMemo(() => allToolCalls(state), [state]);
  const toolMessages = useMemo(() => toolMessagesByCall(state), [state]);
  return (
    <section className="op-log" aria-label="Operation log" data-testid="operation-log">
      {calls.length === 0 ? (
        <p className="muted small op-log-empty">No tool calls yet.</p>
      ) : (
        <div role="log" aria-label="Tool calls, newest last">
          <ol className="op-log-rows">
            {calls.map((c) => (
              <LogRow key={c.id} call={c} toolMessage={toolMessages[c.id]} />
            ))}
          </ol>
        </div>
      )}
    </section>
  );
}

function LogRow({ call, toolMessage }: { call: ToolCallOut; toolMessage?: MessageOut }) {
  const { tools, me } = useAppData();
  const [open, setOpen] = useState(false);
  const detailId = useId();
  const who = decidedBy(call, me);
  const result = resultSummary(call, tools, toolMessage);
  const status = statusWords(call);
  return (
    <li className="op-log-row" data-testid="log-row" data-tool-call-id={call.id} data-status={call.status}>
      <button
        type="button"
        className="op-log-line"
        aria-expanded={open}
        aria-controls={detailId}
        onClick={() => setOpen(!open)}
      >
        <time className="op-log-time" dateTime={call.created_at}>
          {timeOfDay(call.created_at)}
        </time>
        <span className="op-log-tool" data-testid="log-summary">
          {callSummary(call, tools)}
        </span>
        <span className={`badge status-${call.status} tone-${status.tone}`} data-testid="log-status" data-status={call.status}>
          {status.label}
        </span>
        {who && (
          <span className="op-log-who small muted" data-testid="log-who">
            {who}
          </span>
        )}
        {result && (
          <span className="op-log-result small" data-testid="log-result">
            {result}
          </span>
        )}
      </button>
      {open && <LogDetail id={detailId} call={call} toolMessage={toolMessage} />}
    </li>
  );
}

function LogDetail({ id, call, toolMessage }: { id: string; call: ToolCallOut; toolMessage?: MessageOut }) {
  const { tools } = useAppData();
  const args = call.executed_args ?? call.proposed_args;
  const raw = clipDetail(call.raw_args ?? "");
  const result = clipDetail(resultText(call, tools, toolMessage));
  return (
    <div id={id} className="op-log-detail" data-testid="log-detail">
      <h4>Arguments</h4>
      <div data-testid="log-full-args">
        {args != null ? (
          <ArgFields schema={tools[call.name]?.input_schema} args={args} />
        ) : (
          <>
            <p className="muted small">The model sent arguments that could not be read:</p>
            <pre className="op-log-text">{reveal(raw.text)}</pre>
            {raw.omitted > 0 && <p className="muted small">{raw.omitted.toLocaleString()} more characters not shown.</p>}
          </>
        )}
      </div>
      <h4>Result</h4>
      {result.text ? (
        <pre className="op-log-text" data-testid="log-full-result">
          {result.text}
        </pre>
      ) : (
        <p className="muted small">No result yet.</p>
      )}
      {result.omitted > 0 && <p className="muted small">{result.omitted.toLocaleString()} more characters not shown.</p>}
    </div>
  );
}
