/** The status badge of a tool call row: words, a spinner and elapsed seconds while running. */
import type { ToolCallOut } from "../../api/types";
import { formatElapsed, useElapsed } from "../../state/useElapsed";
import { nextStep, statusWords } from "./status";

export function StatusBadge({ call }: { call: ToolCallOut }) {
  const words = statusWords(call);
  const running = call.status === "running";
  return (
    <span className={`badge status-${call.status} tone-${words.tone}`} data-testid="tool-status" data-status={call.status}>
      {running && <span className="spinner" aria-hidden="true" />}
      {words.label}
      {running && <Elapsed since={call.started_at ?? call.created_at} />}
    </span>
  );
}

function Elapsed({ since }: { since: string }) {
  const seconds = useElapsed(since, true);
  return <span className="elapsed"> · {formatElapsed(seconds)}</span>;
}

/**
 * The failure sentence under a row ("Not run: ...", or the error); the code stays in
 * `data-code`. When the outcome is unknown, the next step follows it (see `nextStep`;
 * `subject`: the call as its card describes it).
 */
export function StatusSentence({ call, subject = null }: { call: ToolCallOut; subject?: string | null }) {
  const words = statusWords(call);
  if (!words.sentence) return null;
  const next = nextStep(call, subject);
  return (
    <>
      <div className="tool-result error" data-testid="tool-error" data-code={words.code ?? undefined}>
        <span className="error-sentence">{words.sentence}</span>
      </div>
      {next && (
        <p className="tool-result next-step small" data-testid="next-step">
          {next}
        </p>
      )}
    </>
  );
}
