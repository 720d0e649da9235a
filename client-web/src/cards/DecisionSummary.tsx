import type { DecisionOut, ToolCallOut } from "../api/types";
import { JsonView } from "../components/JsonView";

export function decisionText(d: DecisionOut): string {
  switch (d.type) {
    case "approve":
      return "Approved";
    case "edit":
      return "Edited and approved";
    case "reject":
      return d.message ? `Rejected: ${d.message}` : "Rejected";
    case "respond":
      return d.message ? `Answered: ${d.message}` : "Answered";
    default:
      return String(d.type);
  }
}

/** The recorded decision (from server state), with the arguments that were (or will be) run. */
export function DecisionSummary({ call, showArgs = true }: { call: ToolCallOut; showArgs?: boolean }) {
  const d = call.decision;
  if (!d) return null;
  const args = call.executed_args ?? (d.type === "edit" ? d.args : null);
  return (
    <div className={`decision decision-${d.type}`}>
      <p data-testid="decision" data-decision-type={d.type}>
        {decisionText(d)}
      </p>
      {showArgs && args && d.type !== "reject" && (
        <div className="decision-args">
          <span className="muted">Executed with</span>
          <JsonView value={args} />
        </div>
      )}
      {call.status === "interrupted" && d.type !== "reject" && (
        <p className="muted small">Waiting for the other decisions of this step…</p>
      )}
    </div>
  );
}
