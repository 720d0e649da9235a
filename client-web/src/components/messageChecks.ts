/**
 * What the composer checks before sending (and before asking "Send and cancel them?"), and
 * how it words the server's refusal of a message. A message the server would refuse for a
 * reason the browser can see (nothing written, a command the employee does not have, a
 * command several skills offer) is refused here, so the person is never asked to cancel the
 * waiting decisions for a message that would not be sent.
 */
import { ApiError, fieldErrorWords } from "../api/client";

/** As the server says it (`api.routers.conversations.MessageCreate`). */
const EMPTY_MESSAGE = "The message is empty: write something to send.";
import type { CommandClaim, SlashCommandOut } from "../api/types";

/** The command a message runs, lowercase, read like the server (`engine.command_words.COMMAND_RE`
 * on the trimmed text): `/word` (a letter, then up to 31 of letters, digits, _ and -, in any
 * case: `/Notes` is `/notes`), then a space or the end. Anything else (`/usr/bin`, `/ x`) is an
 * ordinary message. */
export function messageCommand(text: string): string | null {
  const m = /^\/([a-z][a-z0-9_-]{0,31})(?:[^\S\ufeff]|$)/i.exec(trimmed(text));
  return m ? m[1].toLowerCase() : null;
}

/** `text` without the whitespace around it, as Python's `str.strip` (which, unlike
 * `String.trim`, keeps a BOM: the server reads "\ufeff/notes" as no command as typed). */
function trimmed(text: string): string {
  return text.replace(/^[^\S\ufeff]+|[^\S\ufeff]+$/g, "");
}

/** Characters that show nothing but are not format characters (\p{Cf}): the server's
 * `interlock.text._SHOWS_NOTHING`. */
const SHOWS_NOTHING = /[\p{Cf}\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\u{e0100}-\u{e01ef}]/gu;

function withoutInvisible(text: string): string {
  return text.replace(SHOWS_NOTHING, "");
}

/**
 * The command word a message only seems to start with, as the server reads it
 * (`engine.command_words.lookalike_command`): decided on the text as it reads (NFKC, invisible
 * characters dropped), for a message that is no command as typed. `word` is lowercase
 * (fullwidth `/ＮＯＴＥＳ` reads `notes`, `/Nötes` reads `nötes`); `invisible` says the first word
 * holds an invisible character (`/notes` then U+202E). Null for a command as typed and for
 * text that starts with no command word.
 */
export function lookalikeCommand(text: string): { word: string; invisible: boolean } | null {
  if (messageCommand(text) != null) return null;
  const plain = trimmed(withoutInvisible(withoutInvisible(text).normalize("NFKC")));
  const m = /^\/([\p{L}\p{Nl}\p{No}][\p{L}\p{N}_-]{0,31})(?:\s|$)/u.exec(plain);
  if (!m) return null;
  const first = trimmed(text).split(/[^\S\ufeff]+/, 1)[0] ?? "";
  return { word: m[1].toLowerCase(), invisible: withoutInvisible(first) !== first };
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
  if (isBlank(text)) return refusal("empty_message", EMPTY_MESSAGE);
  const lookalike = known ? lookalikeCommand(text) : null;
  if (lookalike) {
    const words = commands.some((c) => c.command === lookalike.word)
      ? lookalikeWords(lookalike.word, lookalike.invisible, employeeName)
      : missingCommand(lookalike.word, commands, employeeName);
    return refusal("slash_command_unknown", words);
  }
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

/**
 * The refusal of a word that only looks like one of the employee's commands, as the server
 * says it (`engine.commands._lookalike_text`). The word as typed is never quoted: a bidi
 * override in it would reorder the sentence.
 */
function lookalikeWords(word: string, invisible: boolean, employeeName: string): string {
  const how = invisible ? "holds an invisible character" : "is written in look-alike characters";
  return `${employeeName} has no command written like that: it looks like /${word} but ${how}. Type /${word} in plain letters to run it, or write your request as a message.`;
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
  const said = fieldErrorWords(error);
  // "The message is empty: …" says which; "Is required." (a command's field) needs the lead.
  if (said) text = said.startsWith("The message ") ? said : `The message was not sent. ${said}`;
  if (waiting > 0 && error.status !== 0 && !madeHere.has(error)) {
    text += ` Nothing was cancelled: ${waiting === 1 ? "the decision still waits" : "the decisions still wait"} for you.`;
  }
  return text;
}


