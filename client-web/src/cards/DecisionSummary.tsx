import type { ReactNode } from "react";
import type { DecisionOut, ToolCallOut } from "../api/types";
import { JsonView } from "../components/JsonView";

/**
 * One line for a recorded decision; `answer` replaces the raw message of a respond and
 * `rejected` words a reject (question cards say "Declined").
 */
export function decisionText(d: DecisionOut, answer?: string | null, rejected = "Rejected"): string {
  switch (d.type) {
    case "approve":
      return "Approved";
    case "edit":
      return "Edited and approved";
    case "reject":
      return d.message ? `${rejected}: ${d.message}` : rejected;
    case "respond": {
      const text = answer ?? d.message;
      return text ? `Answered: ${text}` : "Answered";
    }
    default:
      return String(d.type);
  }
}

interface Props {
  call: ToolCallOut;
  showArgs?: boolean;
  /** How a card words the person's answer (a respond), e.g. "Tea, Coffee" for a JSON list. */
  answer?: string | null;
  /** How a reject is worded: "Rejected" (default) or "Declined" for a question the person declined. */
  rejected?: string;
  /** More about the decision, shown under its line (e.g. a form's submitted values). */
  children?: ReactNode;
}

/** The recorded decision (from server state), with the arguments that were (or will be) run. */
export function DecisionSummary({ call, showArgs = true, answer, rejected, children }: Props) {
  const d = call.decision;
  if (!d) return null;
  const args = call.executed_args ?? (d.type === "edit" ? d.args : null);
  return (
    <div className={`decision decision-${d.type}`}>
      <p data-testid="decision" data-decision-type={d.type}>
        {decisionText(d, answer, rejected)}
      </p>
      {children}
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
