/**
 * Whether a tool call waits for the person reading it: the one place the client decides
 * "waiting for you" (card badge, composer banner, sidebar and tab counts, Alt+J, Approve all).
 *
 * Who can decide is the server's word, computed for the reader (`waiting_for`): `you`, or
 * `approvers` for the owner of a call needing an approver (they may only reject it). The
 * call's status says whether it is still open here (a decision seen since clears it). Events
 * stored before the server sent `waiting_for` read as `you`, as they were shown then.
 */
import type { ToolCallOut } from "../api/types";

type Waiting = Pick<ToolCallOut, "status" | "decision" | "waiting_for">;

/** Undecided interrupt, or a browser tool's result not sent yet. */
function open(call: Waiting): boolean {
  return (call.status === "interrupted" && call.decision == null) || call.status === "awaiting_client";
}

/** True when the call waits for the reader's decision (or their browser's result). */
export function isWaiting(call: Waiting): boolean {
  return open(call) && (call.waiting_for ?? "you") === "you";
}

/** True when the call waits for its approvers, not for the reader (its owner). */
export function waitsForApprovers(call: Waiting): boolean {
  return open(call) && call.waiting_for === "approvers";
}
