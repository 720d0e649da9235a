/** "2 of 3 decided" with Approve all / Reject all (one reason) for the calls still open. */
import { useId, useState } from "react";
import { api, asApiError } from "../../api/client";
import type { DecisionIn, ToolCallOut } from "../../api/types";
import { useAppData } from "../../state/appData";
import { useConversationActions } from "../../state/conversationActions";
import { batchOf } from "./batch";

export function BatchBar({ calls }: { calls: ToolCallOut[] }) {
  const { tools } = useAppData();
  const { dispatch, refresh, owned: mine, connected } = useConversationActions();
  const owned = mine && connected;
  const [busy, setBusy] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const reasonId = useId();
  const batch = batchOf(calls, tools);
  if (!batch) return null;

  const decideAll = async (targets: ToolCallOut[], body: DecisionIn) => {
    setBusy(true);
    setError(null);
    let conflict = false;
    const failures: string[] = [];
    for (const call of targets) {
      try {
        dispatch({ type: "local.toolCall", toolCall: await api.decide(call.id, body) });
      } catch (e) {
        const err = asApiError(e);
        if (err.status === 409) conflict = true;
        else failures.push(err.message);
      }
    }
    if (conflict) await refresh();
    if (failures.length) setError(`${failures.length} decision${failures.length === 1 ? "" : "s"} failed: ${failures[0]}`);
    setBusy(false);
    setRejecting(false);
  };

  const n = batch.calls.length;
  const open = n - batch.decided;
  return (
    <div className="batch-bar" data-testid="batch-bar" role="group" aria-label="Decisions of this step">
      <span className="batch-count" data-testid="batch-count" aria-live="polite">
        {batch.decided} of {n} decided
      </span>
      {owned && !rejecting && (
        <span className="actions">
          {batch.approvable.length > 0 && (
            <button type="button" className="primary" data-testid="approve-all" disabled={busy} onClick={() => void decideAll(batch.approvable, { type: "approve" })}>
              {busy && <span className="spinner" aria-hidden="true" />}
              Approve all{batch.approvable.length < open ? ` ${batch.approvable.length}` : ""}
            </button>
          )}
          <button type="button" className="danger" data-testid="reject-all" disabled={busy} onClick={() => setRejecting(true)}>
            Reject all
          </button>
        </span>
      )}
      {owned && rejecting && (
        <form
          className="reject-form batch-reject"
          onSubmit={(e) => {
            e.preventDefault();
            void decideAll(batch.rejectable, reason.trim() ? { type: "reject", message: reason.trim() } : { type: "reject" });
          }}
        >
          <label htmlFor={reasonId}>Reason for all {batch.rejectable.length} (optional)</label>
          <textarea id={reasonId} data-testid="reject-all-reason" rows={2} value={reason} disabled={busy} autoFocus onChange={(e) => setReason(e.target.value)} />
          <div className="actions">
            <button type="submit" className="danger" data-testid="reject-all-confirm" disabled={busy}>
              {busy && <span className="spinner" aria-hidden="true" />}
              Reject {batch.rejectable.length}
            </button>
            <button type="button" disabled={busy} onClick={() => setRejecting(false)}>
              Back
            </button>
          </div>
        </form>
      )}
      {error && (
        <p className="error small" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
