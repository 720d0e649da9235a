/** A tool call's status in words for people (the raw status stays in `data-status`). */
import type { ToolCallOut } from "../../api/types";
import { reveal } from "../reveal";
import { waitsForApprovers } from "../../state/waiting";

export type Tone = "wait" | "run" | "ok" | "bad" | "off";

export interface StatusWords {
  /** The badge: "Waiting for you", "Done", "Not run", ... */
  label: string;
  tone: Tone;
  /** A plain sentence under the row (failures), or null. */
  sentence: string | null;
  /** The error code (for `data-code` and tests; never shown as words), or null. */
  code: string | null;
}

/**
 * Approved or edited, then refused before the handler ran (a later DENY, an unknown tool, a
 * check failing at run time): the call failed with no executed args and no start.
 */
export function notRun(call: Pick<ToolCallOut, "status" | "executed_args" | "started_at" | "decision">): boolean {
  const d = call.decision;
  return call.status === "failed" && call.executed_args == null && call.started_at == null && d != null && (d.type === "approve" || d.type === "edit");
}

/**
 * Stopped while its tool ran (it said "May have happened") or timed out while its tool ran on
 * in its thread ("Timed out ... is still running"), then its tool returned after all: the
 * status and the result or error are what really happened.
 */
export function finishedLate(call: Pick<ToolCallOut, "finished_late_at">): boolean {
  return call.finished_late_at != null;
}

/** "after it was stopped" / "after it timed out": what a call that finished late was closed as. */
function lateWhen(call: Pick<ToolCallOut, "finished_late_after">): string {
  return call.finished_late_after === "timeout" ? "after it timed out" : "after it was stopped";
}

/** A call of a tool that asks nothing, answered with `respond`: it closed without running. */
export function answeredInstead(call: Pick<ToolCallOut, "name" | "card" | "started_at" | "decision">): boolean {
  const questionCard = call.card === "choice" || call.card === "form" || call.card === "confirm";
  return call.decision?.type === "respond" && call.started_at == null && !call.name.startsWith("ask.") && !questionCard;
}

/** Refused before it was stored as a card (bad arguments, unknown tool, a failed check): never started. */
function refusedUpFront(call: ToolCallOut): boolean {
  return call.status === "failed" && call.decision == null && call.executed_args == null && call.started_at == null;
}

const word = (label: string, tone: Tone, sentence: string | null = null, code: string | null = null): StatusWords => ({ label, tone, sentence, code });

export function statusWords(call: ToolCallOut): StatusWords {
  const d = call.decision;
  switch (call.status) {
    case "pending":
      return word("Getting ready", "run");
    case "interrupted":
      if (!d) {
        const needed = call.approvals_required ?? 1;
        const given = call.approvals?.length ?? 0;
        // Its owner may only reject it: it waits for the approvers (the server's word).
        if (waitsForApprovers(call)) return word(needed > 1 ? `Waiting for the approvers — ${given} of ${needed} approvals` : "Waiting for an approver", "wait");
        return word(needed > 1 && given > 0 ? `${given} of ${needed} approvals` : "Waiting for you", "wait");
      }
      if (d.type === "reject") return word("Rejected", "off");
      return word(d.type === "respond" ? "Answered — waiting for the other decisions" : "Approved — waiting for the other decisions", "wait");
    case "awaiting_client":
      return word("Waiting for your browser", "wait");
    case "running":
      return word("Running", "run");
    case "succeeded":
      // Answered instead of run: a tool that asks nothing (notes.add answered "hi") never ran.
      if (answeredInstead(call)) return word("Answered, not run", "off");
      // Stopped while its tool ran ("May have happened"), and the tool finished after all.
      if (finishedLate(call)) return word(`Happened ${lateWhen(call)}`, "ok");
      return word("Done", "ok");
    case "failed": {
      const message = reveal(call.error?.message ?? "It stopped with an error.");
      if (finishedLate(call)) return word(`Failed ${lateWhen(call)}`, "bad", `Failed ${lateWhen(call)}: ${message}`, call.error?.code ?? null);
      if (notRun(call) || refusedUpFront(call)) return word("Not run", "bad", `Not run: ${message}`, call.error?.code ?? null);
      // Stopped while its tool ran (a cancel, a new message, a server stop) or a write whose
      // answer was lost: it may have happened, and it is never run again.
      if (call.error?.code === "outcome_unknown") return word("May have happened", "bad", message, "outcome_unknown");
      // Past its timeout: a tool in a worker thread runs on, and its message says it may still
      // happen (its outcome shows here when it returns); not a flat "Failed".
      if (call.error?.code === "timeout") return word("Timed out", "bad", message, "timeout");
      return word("Failed", "bad", message, call.error?.code ?? null);
    }
    case "rejected":
      return word(d?.type === "reject" && call.name.startsWith("ask.") ? "Declined" : "Rejected", "off");
    case "cancelled":
      return word("Cancelled", "off");
    case "expired":
      return word("Expired", "off", "Nobody decided in time, so it did not run.", null);
    default:
      return word(String(call.status), "off");
  }
}

/**
 * What the person can do next about a call whose outcome is unknown, or null. A call stopped
 * while its tool ran ("May have happened") and a write past its timeout may have done what it
 * does: trying again may do it twice, so the person is told to check first, naming the call as
 * its card does (`subject`: "Add a note: “buy milk”"). A call whose tool returned after all
 * (finished late) says what happened instead; a read past its timeout can simply be tried again.
 */
export function nextStep(call: ToolCallOut, subject: string | null = null): string | null {
  if (call.status !== "failed" || finishedLate(call)) return null;
  const code = call.error?.code;
  if (code !== "outcome_unknown" && !(code === "timeout" && call.write)) return null;
  const what = subject?.replace(/\s+/g, " ").trim().replace(/[.!?]+$/, "");
  const check = what ? `Before trying again, check whether this happened: ${what}.` : "Before trying again, check whether it happened.";
  // A thread tool past its timeout runs on: its card shows what it did if it returns.
  return code === "timeout" ? `${check} This card shows the outcome if the tool finishes later.` : check;
}

/** "10:42" today, else "3 Mar, 10:42", in the viewer's locale and time zone. */
export function whenText(iso: string, now = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const time = d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  if (d.toDateString() === now.toDateString()) return time;
  return `${d.toLocaleDateString(undefined, { day: "numeric", month: "short" })}, ${time}`;
}
