/**
 * Tryout: ann's call needing an approver (require_approver, two approvals, approvers bob and
 * carol) showed her "Waiting for you", the banner "Hal is waiting for your decision" and
 * "1 decision" in the sidebar and tab title, though she may only reject it. Who can decide is
 * the server's word for the reader (`waiting_for`): everything that counts or marks calls
 * waiting for the person reads it through `isWaiting`.
 */
import { describe, expect, it } from "vitest";
import { batchOf } from "../cards/batch/batch";
import { statusWords } from "../cards/status/status";
import { detail, message, toolCall } from "../test/fixtures";
import { initialState, reducer, waitingCalls } from "./reducer";
import { isWaiting, waitsForApprovers } from "./waiting";

const needingApprovers = (over = {}) =>
  toolCall({ status: "interrupted", require_approver: true, approvals_required: 2, waiting_for: "approvers", ...over });

describe("who a waiting call waits for", () => {
  it("a call needing an approver does not wait for its owner: badge, counts, Alt+J target", () => {
    const owners = needingApprovers();
    const plain = toolCall({ id: "call_2", status: "interrupted", created_at: "2025-01-01T00:00:01Z" });
    const state = reducer(initialState, {
      type: "reset",
      detail: detail({ status: "paused", messages: [message({ id: 2, role: "assistant", content: "", tool_calls: [owners, plain] })] }),
    });

    expect(isWaiting(owners)).toBe(false);
    expect(waitsForApprovers(owners)).toBe(true);
    expect(statusWords(owners).label).toBe("Waiting for the approvers — 0 of 2 approvals");
    expect(statusWords(needingApprovers({ approvals_required: 1 })).label).toBe("Waiting for an approver");
    // The banner, the sidebar's and title's live count and Alt+J all read waitingCalls.
    expect(waitingCalls(state).map((c) => c.id)).toEqual(["call_2"]);
    expect(batchOf([owners, plain], {})?.approvable.map((c) => c.id)).toEqual(["call_2"]);
  });

  it("the same call read by an approver waits for them", () => {
    const approvers = needingApprovers({ waiting_for: "you" });
    expect(isWaiting(approvers)).toBe(true);
    expect(statusWords(approvers).label).toBe("Waiting for you");
  });

  it("a decided call waits for nobody, whatever it said before", () => {
    const decided = needingApprovers({
      decision: { type: "reject", args: null, message: null, user_id: "user_ann", created_at: "2025-01-01T00:00:02Z", proposed_args: null },
    });
    expect(isWaiting(decided) || waitsForApprovers(decided)).toBe(false);
  });
});
