/** One row per tool call: title, status, args, result summary, and its card when it has one. */
import { useState } from "react";
import type { MessageOut, ToolCallOut } from "../api/types";
import { CardHost } from "../cards/CardHost";
import { hasCard } from "../cards/registry";
import { toolTitle, useAppData } from "../state/appData";
import { compactJson } from "./JsonView";

const CLIP = 300;

export function ToolCallRow({ call, toolMessage }: { call: ToolCallOut; toolMessage?: MessageOut }) {
  const { tools } = useAppData();
  const args = call.executed_args ?? call.proposed_args;
  return (
    <div className="tool-call" data-testid="tool-call" data-tool-call-id={call.id} data-status={call.status}>
      <div className="tool-call-line">
        <span className="tool-title">{toolTitle(tools, call.name)}</span>
        <span className={`badge status-${call.status}`} data-testid="tool-status">
          {call.status}
        </span>
        <code className="tool-args" title="Arguments">
          {args != null ? compactJson(args) : (call.raw_args ?? "")}
        </code>
      </div>
      <ResultSummary call={call} toolMessage={toolMessage} />
      {hasCard(call) && <CardHost call={call} />}
    </div>
  );
}

function ResultSummary({ call, toolMessage }: { call: ToolCallOut; toolMessage?: MessageOut }) {
  if (call.error) {
    return (
      <div className="tool-result error">
        <code>{call.error.code}</code> {call.error.message}
      </div>
    );
  }
  const text = call.result_text ?? toolMessage?.content ?? null;
  if (!text) return null;
  return <ClippedText text={text} />;
}

export function ClippedText({ text, limit = CLIP }: { text: string; limit?: number }) {
  const [open, setOpen] = useState(false);
  const long = text.length > limit;
  return (
    <div className="tool-result" data-testid="tool-result">
      <pre className="result-text">{open || !long ? text : `${text.slice(0, limit)}…`}</pre>
      {long && (
        <button type="button" className="link" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "Show less" : `Show all (${text.length.toLocaleString()} characters)`}
        </button>
      )}
    </div>
  );
}
