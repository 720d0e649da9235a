/** `ask.confirm` (card hint `confirm`): a summary and Yes / No, answered with a respond "yes" / "no". */
import { useId, useState } from "react";
import type { ToolCallOut } from "../../api/types";
import { actionName } from "../actionName";
import { DecisionSummary } from "../DecisionSummary";
import { reveal } from "../reveal";
import { statusWords } from "../status/status";
import type { CardProps } from "../types";

export function confirmSummary(call: Pick<ToolCallOut, "proposed_args">): string {
  const summary = call.proposed_args?.summary;
  return typeof summary === "string" ? summary : "";
}

export function ConfirmCard({ call, title, live, busy, decide }: CardProps) {
  const [error, setError] = useState<string | null>(null);
  const summaryId = useId();
  const summary = confirmSummary(call);

  const answer = async (message: "yes" | "no") => {
    setError(null);
    const err = await decide({ type: "respond", message });
    if (err && err.status !== 409) setError(err.message);
  };

  return (
    <section className="card confirm-card" aria-label={`Confirm: ${summary || title}`}>
      <header className="card-head">
        <h4>{reveal(title)}</h4>
      </header>
      {summary && (
        <p className="card-question" id={summaryId}>
          {reveal(summary)}
        </p>
      )}
      {call.decision ? (
        <DecisionSummary call={call} showArgs={false} />
      ) : live ? (
        <div className="actions" role="group" aria-labelledby={summary ? summaryId : undefined}>
          <button type="button" className="primary" data-testid="confirm-yes" disabled={busy} aria-label={actionName("Yes", summary)} onClick={() => void answer("yes")}>
            Yes
          </button>
          <button type="button" data-testid="confirm-no" disabled={busy} aria-label={actionName("No", summary)} onClick={() => void answer("no")}>
            No
          </button>
        </div>
      ) : (
        <p className="muted small">Not waiting for an answer ({statusWords(call).label.toLowerCase()}).</p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
