/**
 * Picks the card for a tool call and owns its decision POST (in-flight state, 409 refresh).
 * A refused decision's sentence goes to `onConflict`: the row shows it, since the card itself
 * goes away when the call turns out expired or cancelled (nobody's decision to show).
 */
import { useCallback, useState } from "react";
import { ApiError, api } from "../api/client";
import type { DecisionIn, ToolCallOut } from "../api/types";
import { useAppData, toolTitle } from "../state/appData";
import { useConversationActions } from "../state/conversationActions";
import { ApprovalProgress } from "./approval/ApprovalProgress";
import { waitsForApprovers } from "../state/waiting";
import { ExpiryCountdown } from "./approval/ExpiryCountdown";
import { cardFor } from "./registry";

/**
 * What a row says when its decision met a 409: the server's sentence, punctuated once, and
 * that the recorded decision is shown when there is one (an expired or cancelled call has none).
 */
export function notAppliedSentence(message: string, decided = true): string {
  const reason = message.trim();
  const stopped = /[.!?]$/.test(reason) ? reason : `${reason}.`;
  const parts = ["Your decision was not applied.", reason && stopped, decided && "The recorded decision is shown."];
  return parts.filter(Boolean).join(" ");
}

export function CardHost({ call, onConflict }: { call: ToolCallOut; onConflict: (reason: string | null) => void }) {
  const { tools, me } = useAppData();
  const { dispatch, refresh, owned, connected } = useConversationActions();
  const [busy, setBusy] = useState(false);

  const decide = useCallback(
    async (body: DecisionIn): Promise<ApiError | null> => {
      setBusy(true);
      onConflict(null);
      try {
        const updated = await api.decide(call.id, body);
        dispatch({ type: "local.toolCall", toolCall: updated });
        return null;
      } catch (e) {
        const err = e instanceof ApiError ? e : new ApiError(0, { code: "error", message: String(e) });
        if (err.status === 409) {
          // Decided elsewhere (or no longer waiting): show what the server recorded.
          onConflict(err.message);
          await refresh();
        }
        return err;
      } finally {
        setBusy(false);
      }
    },
    [call.id, dispatch, refresh, onConflict],
  );

  const tool = tools[call.name];
  const Card = cardFor(call, tool);
  const waiting = call.status === "interrupted" && call.decision == null;
  const live = waiting && owned && connected;
  // The owner of a call needing an approver, or someone who already gave their approval of a
  // call needing several, can only reject it.
  const approvedAlready = (call.approvals ?? []).some((a) => a.user_id === me?.id);
  const canApprove = !(waitsForApprovers(call) && owned) && !approvedAlready;
  return (
    <div className="card-host">
      <Card call={call} tool={tool} title={toolTitle(tools, call.name, call.title)} live={live} busy={busy} decide={decide} canApprove={canApprove} />
      {waiting && <ApprovalProgress call={call} owned={owned} />}
      {waiting && call.expires_at && <ExpiryCountdown expiresAt={call.expires_at} />}
    </div>
  );
}
