/**
 * Several calls of one step waiting for the person: "2 of 3 decided", and Approve all /
 * Reject all for the ones still open. Questions (choice, form, confirm cards) need an answer,
 * so Approve all leaves them to the person; Reject all declines them too.
 */
import { waitsForApprovers } from "../../state/waiting";
import type { ToolCallOut, ToolOut } from "../../api/types";
import { hasCard, isQuestion } from "../registry";

export interface Batch {
  /** The calls of the waiting step(s) that have a card, oldest first. */
  calls: ToolCallOut[];
  decided: number;
  /** Undecided calls Approve all would approve. */
  approvable: ToolCallOut[];
  /** Undecided calls Reject all would reject. */
  rejectable: ToolCallOut[];
}

/** The batch of `calls` (one message's calls), or null when fewer than two wait together. */
export function batchOf(calls: ToolCallOut[], tools: Record<string, ToolOut>): Batch | null {
  const waiting = calls.filter((c) => c.status === "interrupted" && c.decision == null);
  if (waiting.length === 0) return null;
  const runs = new Set(waiting.map((c) => c.run_id));
  const step = calls.filter((c) => hasCard(c) && runs.has(c.run_id));
  if (step.length < 2) return null;
  return {
    calls: step,
    decided: step.filter((c) => c.decision != null).length,
    // A call waiting for its approvers is not its owner's to approve (the server's word).
    approvable: waiting.filter((c) => !isQuestion(c, tools[c.name]) && !waitsForApprovers(c)),
    rejectable: waiting,
  };
}
