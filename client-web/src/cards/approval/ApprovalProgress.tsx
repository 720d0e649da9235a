/**
 * Who must still approve a waiting call: "1 of 2 approvals: Ana" for a call needing several
 * people (and why it cannot be edited), and a note when only an approver (not the conversation's owner) may approve it.
 */
import type { ToolCallOut } from "../../api/types";

interface Props {
  call: ToolCallOut;
  /** The viewer owns the conversation (then, with `require_approver`, they can only reject). */
  owned: boolean;
}

export function ApprovalProgress({ call, owned }: Props) {
  const needed = call.approvals_required ?? 1;
  const given = call.approvals ?? [];
  if (needed <= 1 && !call.require_approver) return null;
  const names = given.map((a) => a.user_name).join(", ");
  return (
    <div className="approval-progress" data-testid="approval-progress">
      {needed > 1 && (
        <p>
          <strong>
            {given.length} of {needed} approvals
          </strong>
          {names ? `: ${names}` : ": none yet"}
          {given.length < needed &&
            `. Needs ${needed - given.length} more from different people; any reject ends it. ` +
              "It can't be edited, so everyone approves the same thing."}
        </p>
      )}
      {call.require_approver && (
        <p className="muted small">
          {owned
            ? "This needs an approver's approval: you can't approve your own call, but you can reject it."
            : "This needs an approver's approval; the person who asked can only reject it."}
        </p>
      )}
    </div>
  );
}
