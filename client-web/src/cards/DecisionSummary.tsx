import type { ReactNode } from "react";
import type { DecisionOut, ToolCallOut } from "../api/types";
import { useAppData } from "../state/appData";
import { ArgsDiff } from "./diff/ArgsDiff";
import { reveal } from "./reveal";
import { notRun, whenText } from "./status/status";

/**
 * One line for a recorded decision; `answer` replaces the raw message of a respond,
 * `rejected` words a reject (question cards say "Declined") and `chosen` an edit that picked
 * a suggestion ("Chose “Pixel”", cards/choice/choice.ts `choseText`).
 */
export function decisionText(d: DecisionOut, answer?: string | null, rejected = "Rejected", chosen?: string | null): string {
  switch (d.type) {
    case "approve":
      return "Approved";
    case "edit":
      return chosen ?? "Edited and approved";
    case "reject":
      return d.message ? `${rejected}: ${reveal(d.message)}` : rejected;
    case "respond": {
      const text = answer ?? (d.message && reveal(d.message));
      return text ? `Answered: ${text}` : "Answered";
    }
    default:
      return String(d.type);
  }
}

/**
 * "by ann at 10:42" (who decided, when), "by you at 10:42" when the viewer (`meId`) decided (as
 * the operation log says it), or "at 10:42" when the server did not say who.
 */
export function decidedBy(d: DecisionOut, now?: Date, meId?: string | null): string {
  const when = whenText(d.created_at, now);
  const who = meId && d.user_id === meId ? "by you" : d.user_name ? `by ${d.user_name}` : "";
  return [who, when && `at ${when}`].filter(Boolean).join(" ");
}

interface Props {
  call: ToolCallOut;
  /** For an edit, show what changed (proposed → executed, field by field). */
  showArgs?: boolean;
  /** The tool's input_schema (field labels of the diff). */
  schema?: unknown;
  /** How a card words the person's answer (a respond), e.g. "Tea, Coffee" for a JSON list. */
  answer?: string | null;
  /** How a reject is worded: "Rejected" (default) or "Declined" for a question the person declined. */
  rejected?: string;
  /** How an edit is worded when it picked a suggestion: "Chose “Pixel”". */
  chosen?: string | null;
  /** More about the decision, shown under its line (e.g. a form's submitted values). */
  children?: ReactNode;
}

/** The recorded decision (from server state): what, who and when, and for an edit its diff. */
export function DecisionSummary({ call, showArgs = true, schema, answer, rejected, chosen, children }: Props) {
  const { me } = useAppData();
  const d = call.decision;
  if (!d) return null;
  const executed = call.executed_args ?? (d.type === "edit" ? d.args : null);
  const proposed = d.proposed_args ?? call.proposed_args;
  const by = decidedBy(d, undefined, me?.id);
  return (
    <div className={`decision decision-${d.type}`}>
      <p data-testid="decision" data-decision-type={d.type}>
        {decisionText(d, answer, rejected, chosen)}
      </p>
      {by && (
        <p className="muted small decision-by" data-testid="decision-by">
          {by}
        </p>
      )}
      {children}
      {showArgs && d.type === "edit" && executed && !notRun(call) && (
        <div className="decision-args">
          <span className="muted small">Changes (proposed → run with)</span>
          <ArgsDiff schema={schema} proposed={proposed} executed={executed} />
        </div>
      )}
      {notRun(call) && (
        <p className="error small" data-testid="not-run">
          Not run: {call.error?.message ?? "refused before it ran."}
        </p>
      )}
      {call.status === "interrupted" && d.type !== "reject" && (
        <p className="muted small">Waiting for the other decisions of this step…</p>
      )}
    </div>
  );
}
