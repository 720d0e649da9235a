/** The status badge of a tool call row: words, a spinner and elapsed seconds while running. */
import { useEffect, useState } from "react";
import type { ToolCallOut } from "../../api/types";
import { elapsedSeconds, statusWords } from "./status";

export function StatusBadge({ call }: { call: ToolCallOut }) {
  const words = statusWords(call);
  const running = call.status === "running";
  return (
    <span className={`badge status-${call.status} tone-${words.tone}`} data-testid="tool-status" data-status={call.status}>
      {running && <span className="spinner" aria-hidden="true" />}
      {words.label}
      {running && <Elapsed startedAt={call.started_at} />}
    </span>
  );
}

function Elapsed({ startedAt }: { startedAt: string | null }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);
  return <span className="elapsed"> · {elapsedSeconds(startedAt, now)} s</span>;
}

/** The failure sentence under a row ("Not run: ...", or the error), with the code in small print. */
export function StatusSentence({ call }: { call: ToolCallOut }) {
  const words = statusWords(call);
  if (!words.sentence) return null;
  return (
    <div className="tool-result error" data-testid="tool-error">
      <span className="error-sentence">{words.sentence}</span>
      {words.code && <small className="error-code"> ({words.code})</small>}
    </div>
  );
}
