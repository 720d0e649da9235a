/**
 * An Approvals entry for a call in someone else's conversation (the viewer is one of the
 * employee's approvers): who asked (and through which MCP client, for a call one made), the
 * message that proposed the call, what it would do, the approvals so far and the time left,
 * with Approve and Reject right here (the conversation itself is not theirs to open).
 */
import { useId, useState } from "react";
import { asApiError, api } from "../api/client";
import type { ApprovalOut, DecisionIn, EmployeeOut, ToolOut } from "../api/types";
import { ApprovalProgress } from "../cards/approval/ApprovalProgress";
import { ExpiryCountdown } from "../cards/approval/ExpiryCountdown";
import { ArgFields } from "../cards/fields/ArgFields";
import { reveal } from "../cards/reveal";
import { originText } from "../cards/ToolCardHeader";
import { toolTitle } from "../state/appData";
import { Avatar } from "./Avatar";

interface Props {
  item: ApprovalOut;
  tool: ToolOut | undefined;
  tools: Record<string, ToolOut>;
  employee: EmployeeOut | undefined;
  myId: string | undefined;
  /** Called after a decision was recorded (or refused as too late): re-read the list. */
  onDecided: () => void;
  /** Called with the sentence to keep showing when the server refused the decision (the
   * call was already decided, expired, cancelled or deleted): the re-read list drops the
   * item, so its own error line would vanish with it. */
  onRefused: (sentence: string) => void;
}

export function ApproverItem({ item, tool, tools, employee, myId, onDecided, onRefused }: Props) {
  const { tool_call: call, conversation } = item;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState("");
  const reasonId = useId();
  const approvedByMe = (call.approvals ?? []).some((a) => a.user_id === myId);
  const who = item.requested_by ?? "someone";

  const decide = async (body: DecisionIn) => {
    setBusy(true);
    setError(null);
    try {
      await api.decide(call.id, body);
      onDecided();
    } catch (e) {
      const err = asApiError(e);
      if (err.status === 404 || err.status === 409) {
        onRefused(refusedSentence(toolTitle(tools, call.name, call.title), who, err.status === 404 ? GONE : err.message));
        onDecided();
      } else {
        setError(err.message);
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <li className="approval-item approver-item" data-testid="approval-item" data-role="approver" data-tool-call-id={call.id} data-conversation-id={conversation.id}>
      <div className="approval-who">
        {employee && <Avatar avatar={employee.avatar} name={employee.name} size="sm" />}
        <strong>{reveal(employee?.name ?? conversation.employee ?? "Employee")}</strong>
        <span className="muted"> asks you to approve, for </span>
        <strong data-testid="approval-requested-by">{reveal(who)}</strong>
        {originText(call) && (
          <span className="approval-origin" data-testid="approval-origin">
            {" "}
            · {originText(call)}
          </span>
        )}
      </div>
      {item.message && (
        <blockquote className="approval-message" data-testid="approval-message">
          {reveal(item.message)}
        </blockquote>
      )}
      <div className="approval-what">
        <span className="approval-tool">{toolTitle(tools, call.name, call.title)}</span>
        {/* What the call would do in words ("Delete note #2: “call mom”"): the args alone
            name only an id the approver cannot look up. */}
        {call.confirmation?.summary && (
          <p className="approval-summary" data-testid="approval-summary">
            {reveal(call.confirmation.summary)}
          </p>
        )}
        <ArgFields schema={tool?.input_schema} args={call.proposed_args ?? {}} />
      </div>
      <ApprovalProgress call={call} owned={false} />
      {call.expires_at && <ExpiryCountdown expiresAt={call.expires_at} />}
      {approvedByMe ? (
        <p className="muted small" data-testid="approved-by-me">
          You approved this; it waits for someone else's approval.
        </p>
      ) : rejecting ? (
        <form
          className="reject-form"
          onSubmit={(e) => {
            e.preventDefault();
            void decide(reason.trim() ? { type: "reject", message: reason.trim() } : { type: "reject" });
          }}
        >
          <label htmlFor={reasonId}>Reason (optional, {reveal(who)} and the AI see it)</label>
          <textarea id={reasonId} rows={2} value={reason} disabled={busy} autoFocus onChange={(e) => setReason(e.target.value)} data-testid="reject-reason" />
          <div className="actions">
            <button type="submit" className="danger" disabled={busy} data-testid="reject-confirm">
              Confirm reject
            </button>
            <button type="button" disabled={busy} onClick={() => setRejecting(false)}>
              Back
            </button>
          </div>
        </form>
      ) : (
        <div className="actions">
          <button type="button" className="primary" disabled={busy} onClick={() => void decide({ type: "approve" })} data-testid="approve">
            {busy ? <span className="spinner" aria-hidden="true" /> : null}
            Approve
          </button>
          <button type="button" className="danger" disabled={busy} onClick={() => setRejecting(true)} data-testid="reject">
            Reject
          </button>
        </div>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </li>
  );
}

/** What a refusal says when the call's conversation was deleted meanwhile (404). */
const GONE = "Its conversation was deleted, so the call is gone.";

/**
 * The sentence kept above the list when a decision was refused: which call, for whom, and the
 * server's reason ("Your decision on Add a note for ann was not applied. Already decided: ann
 * rejected this call.").
 */
export function refusedSentence(toolName: string, who: string, reason: string): string {
  const why = reason.trim();
  const stopped = !why || /[.!?]$/.test(why) ? why : `${why}.`;
  return [`Your decision on ${reveal(toolName)} for ${reveal(who)} was not applied.`, stopped].filter(Boolean).join(" ");
}
