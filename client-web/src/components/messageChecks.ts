/**
 * What the composer checks before sending (and before asking "Send and cancel them?"), and
 * how it words the server's refusal of a message. A message the server would refuse for a
 * reason the browser can see (nothing written, a command the employee does not have, a
 * command several skills offer) is refused here, so the person is never asked to cancel the
 * waiting decisions for a message that would not be sent.
 */
import { ApiError } from "../api/client";
import type { CommandClaim, SlashCommandOut } from "../api/types";

/** The command a message runs, lowercase, read like the server (`engine.commands.COMMAND_RE`
 * on the trimmed text): `/word` (a letter, then up to 31 of letters, digits, _ and -, in any
 * case: `/Notes` is `/notes`), then a space or the end. Anything else (`/usr/bin`, `/ x`) is an
 * ordinary message. */
export function messageCommand(text: string): string | null {
  const m = /^\/([a-z][a-z0-9_-]{0,31})(?:\s|$)/i.exec(text.trim());
  return m ? m[1].toLowerCase() : null;
}

/**
 * Why the message cannot be sent as it is, as the server would say it, or null to send it.
 *
 * @param commands The employee's commands; checked only when `known` (loaded).
 * @param employeeName The employee's name, as the server's refusal names them.
 */
export function refusalBeforeSending(
  text: string,
  claim: CommandClaim | undefined,
  commands: readonly SlashCommandOut[],
  known: boolean,
  employeeName = "This employee",
): ApiError | null {
  if (isBlank(text)) return refusal("empty_message", "Write a message first.");
  const name = messageCommand(text);
  if (name == null || !known || claim) return null;
  const offered = commands.filter((c) => c.command === name);
  if (offered.length === 0) {
    // Whether another employee has it or none does, this one cannot run it: worded as the
    // server words both (engine.commands._missing_command), with what to do instead.
    return refusal("slash_command_unavailable", missingCommand(name, commands, employeeName));
  }
  if (offered.length > 1) {
    return refusal("slash_command_ambiguous", `/${name} is offered by several skills. Pick one:`, {
      candidates: offered.map((c) => ({ skill: c.skill, command: c.command, title: c.title })),
    });
  }
  return null;
}

/**
 * The refusal of a command the employee does not have, naming the commands it has, as the
 * server says it: "Scout has no command /help. You can use /notes or /suggest, or write your
 * request as a message."
 */
function missingCommand(name: string, commands: readonly SlashCommandOut[], employeeName: string): string {
  const lead = `${employeeName} has no command /${name}`;
  const listed = [...new Set(commands.map((c) => c.command))].sort().map((n) => `/${n}`);
  if (listed.length === 0) return `${lead}; write your request as a message instead.`;
  const either = listed.length === 1 ? listed[0] : `${listed.slice(0, -1).join(", ")} or ${listed[listed.length - 1]}`;
  return `${lead}. You can use ${either}, or write your request as a message.`;
}

/** Whitespace and characters that show nothing (zero-width spaces and joiners, bidi marks and
 * overrides, a BOM, variation selectors, Hangul fillers, tags): the server's
 * `interlock.text.is_blank`, which refuses such a message as empty. */
const INVISIBLE_ONLY =
  /^[\s\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\u{e0000}-\u{e0fff}]*$/u;

/** True when `text` shows nothing: only whitespace and invisible characters. */
export function isBlank(text: string): boolean {
  return INVISIBLE_ONLY.test(text);
}

/** Refusals made here: nothing was asked, so there is nothing to say about the decisions. */
const madeHere = new WeakSet<ApiError>();

function refusal(code: string, message: string, details: unknown = null): ApiError {
  const error = new ApiError(422, { code, message, details });
  madeHere.add(error);
  return error;
}

/**
 * The server's refusal of a message, for the person: field errors of a 422 `invalid_request`
 * in words instead of "The request is not valid.", and, when decisions were waiting, that
 * they still wait (the server refuses before it cancels anything).
 */
export function refusalWords(error: ApiError, waiting: number): string {
  let text = error.message;
  if (error.code === "invalid_request") {
    const fields = ((error.details as { errors?: unknown } | null)?.errors ?? []) as { path?: unknown; message?: unknown }[];
    const said = Array.isArray(fields)
      ? fields.map((f) => (typeof f.message === "string" ? f.message.replace(/^Value error, /, "") : "")).filter(Boolean)
      : [];
    if (said.length) text = `The message was not sent: ${said.map(sentence).join(" ")}`;
  }
  if (waiting > 0 && error.status !== 0 && !madeHere.has(error)) {
    text += ` Nothing was cancelled: ${waiting === 1 ? "the decision still waits" : "the decisions still wait"} for you.`;
  }
  return text;
}

function sentence(text: string): string {
  const t = text.trim();
  const capital = t.charAt(0).toUpperCase() + t.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}
