/**
 * The operation log's rows: one per tool call, in words a person reads.
 *
 * Pure functions (tested in opLog.test.ts); the panel is components/OperationLog.tsx. Status
 * words are the cards' (cards/status/status.ts), so the log and the rows say the same.
 * Everything here returns plain text: the panel renders it as text, never as HTML.
 */
import type { MeOut, MessageOut, ToolCallOut } from "../api/types";

/** Length of the one-line args and result summaries. */
export const SUMMARY_CHARS = 80;
/** The expanded row shows at most this much of the args and of the result. */
export const DETAIL_CHARS = 10_000;

/**
 * Cuts `text` to `limit` characters on one line: whitespace runs become one space and a cut
 * text ends with "…". Never splits a surrogate pair.
 */
export function oneLine(text: string, limit = SUMMARY_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return cut(flat, limit);
}

/** `text` cut to `limit` characters (code points kept whole), with "…" when cut. */
export function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let end = limit - 1;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1; // keep a surrogate pair together
  return `${text.slice(0, end)}…`;
}

/** `text` cut at `limit` characters for the expanded row, saying how much was left out. */
export function clipDetail(text: string, limit = DETAIL_CHARS): { text: string; omitted: number } {
  if (text.length <= limit) return { text, omitted: 0 };
  let end = limit;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), omitted: text.length - end };
}

function scalar(value: unknown): string {
  if (typeof value === "string") return JSON.stringify(value);
  if (value === null || typeof value !== "object") return String(value);
  if (Array.isArray(value)) return `[${value.length} item${value.length === 1 ? "" : "s"}]`;
  return "{…}";
}

/**
 * The args as one short line: `text: "buy milk", id: 2` (the executed args when the call ran
 * with edited ones, else the proposed args, else the raw text the model sent).
 */
export function argsSummary(call: Pick<ToolCallOut, "executed_args" | "proposed_args" | "raw_args">): string {
  const args = call.executed_args ?? call.proposed_args;
  if (args == null) return oneLine(call.raw_args ?? "");
  const parts = Object.entries(args).map(([key, value]) => `${key}: ${scalar(value)}`);
  return oneLine(parts.length ? parts.join(", ") : "no arguments");
}

/** The args in full, pretty-printed. */
export function argsDetail(call: Pick<ToolCallOut, "executed_args" | "proposed_args" | "raw_args">): string {
  const args = call.executed_args ?? call.proposed_args;
  return args == null ? (call.raw_args ?? "") : JSON.stringify(args, null, 2);
}

/** The whole result text: the error, the tool's text, or the tool message. */
export function resultText(
  call: Pick<ToolCallOut, "error" | "result_text">,
  toolMessage?: Pick<MessageOut, "content">,
): string {
  if (call.error) return `${call.error.message} (${call.error.code})`;
  return call.result_text ?? toolMessage?.content ?? "";
}

/** The result as one short line; empty while nothing came back. */
export function resultSummary(
  call: Pick<ToolCallOut, "error" | "result_text">,
  toolMessage?: Pick<MessageOut, "content">,
): string {
  if (call.error) return oneLine(call.error.message);
  return oneLine(resultText(call, toolMessage));
}

/** Who decided: "you", another person's name, "allowed" (no card), or "" (nobody yet). */
export function decidedBy(
  call: Pick<ToolCallOut, "decision" | "permission" | "status">,
  me: Pick<MeOut, "id"> | null,
): string {
  const d = call.decision;
  if (d) {
    if (me && d.user_id === me.id) return "you";
    const named = (d as { user_name?: unknown }).user_name;
    return typeof named === "string" && named ? named : "someone else";
  }
  if (call.permission === "ALLOW") return "allowed";
  if (call.status === "cancelled") return "nobody (cancelled)";
  if (call.status === "expired") return "nobody (expired)";
  return "";
}

/** "14:03:27" in the browser's time zone (24-hour, seconds). */
export function timeOfDay(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
