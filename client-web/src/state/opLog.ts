/**
 * The operation log's rows: one per tool call, in words a person reads.
 *
 * Pure functions (tested in opLog.test.ts); the panel is components/OperationLog.tsx. Status
 * words are the cards' (cards/status/status.ts), so the log and the rows say the same.
 * Everything here returns plain text: the panel renders it as text, never as HTML. A call reads
 * as its card does (the tool's title, its confirmation summary, args labelled from its schema),
 * never as raw keys, and a loaded skill's instructions (written for the model) never show.
 */
import type { JsonObject, MeOut, MessageOut, ToolCallOut, ToolOut } from "../api/types";
import { answerWords } from "../cards/answerWords";
import { argsSummary, humanise, schemaFields } from "../cards/fields/schemaFields";
import { charCount, reveal } from "../cards/reveal";
import { isQuestion } from "../cards/registry";
import { toolTitle } from "./appData";
import { LOAD_SKILL, skillLoadedText } from "./skillLoaded";

/** Length of the one-line args and result summaries. */
export const SUMMARY_CHARS = 80;
/** The expanded row shows at most this much of the args and of the result. */
export const DETAIL_CHARS = 10_000;

/**
 * Cuts `text` to `limit` characters on one line: whitespace runs become one space, hidden
 * characters read `[U+202E]` (see cards/reveal) and a cut text ends with "…". Never splits a
 * surrogate pair.
 */
export function oneLine(text: string, limit = SUMMARY_CHARS): string {
  const flat = reveal(text).replace(/\s+/g, " ").trim();
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
  return { text: text.slice(0, end), omitted: charCount(text.slice(end)) };
}

/** The args the call ran with (edited ones when edited), else the proposed ones; null when unreadable. */
function argsOf(call: Pick<ToolCallOut, "executed_args" | "proposed_args">): JsonObject | null {
  return call.executed_args ?? call.proposed_args ?? null;
}

/**
 * What the call does, as its card says it: the tool's confirmation summary when the server
 * made one ("Add a note: “buy bread”"), else the tool's title and its args labelled from the
 * tool's schema ("Add a note: buy bread"; several fields: "Rename: Title: Plan · Tags: a, b").
 * One line, at most `limit` characters.
 */
export function callSummary(
  call: Pick<ToolCallOut, "name" | "title" | "confirmation" | "executed_args" | "proposed_args" | "raw_args">,
  tools: Record<string, ToolOut>,
  limit = SUMMARY_CHARS,
): string {
  const summary = confirmationSummary(call);
  if (summary) return oneLine(summary, limit);
  const question = questionText(call);
  if (question) return oneLine(question, limit);
  const title = toolTitle(tools, call.name, call.title);
  const args = argsOf(call);
  if (args == null) return oneLine(call.raw_args ? `${title}: arguments the model sent could not be read` : title, limit);
  const fields = schemaFields(tools[call.name]?.input_schema, args);
  if (fields.length === 0) return oneLine(title, limit);
  const [only] = fields;
  const said = fields.length === 1 && only.kind !== "object" && only.kind !== "list" ? only.text : fieldsLine(tools[call.name]?.input_schema, args);
  return oneLine(`${title}: ${said}`, limit);
}

/**
 * What a question asks, as the person reads it: a form's title and the names of its fields
 * ("Your details: Name, Email, Age"), a choice's question and options ("Which one? tea, coffee
 * or juice"), a confirmation's summary. Null for other tools, or args of another shape: their
 * args (a form's are a JSON Schema) would read as schema keywords ("Type: object, Properties…").
 */
export function questionText(call: Pick<ToolCallOut, "name" | "executed_args" | "proposed_args">): string | null {
  const args = argsOf(call);
  if (args == null) return null;
  const text = (value: unknown) => (typeof value === "string" && value.trim() ? value.trim() : null);
  if (call.name === "ask.confirm") return text(args.summary);
  if (call.name === "ask.choice") {
    const question = text(args.question);
    const options = Array.isArray(args.options) ? args.options.map(text).filter((o): o is string => o != null) : [];
    if (!question) return null;
    if (options.length === 0) return question;
    const listed = options.length > 1 ? `${options.slice(0, -1).join(", ")} or ${options[options.length - 1]}` : options[0];
    return `${question} ${listed}`;
  }
  if (call.name === "ask.form") {
    const title = text(args.title);
    const fields = args.fields as { properties?: unknown } | null | undefined;
    const props = fields && typeof fields === "object" && fields.properties && typeof fields.properties === "object" ? (fields.properties as Record<string, unknown>) : {};
    const names = Object.entries(props).map(([key, prop]) => {
      const titled = prop && typeof prop === "object" ? text((prop as { title?: unknown }).title) : null;
      return titled ?? humanise(key);
    });
    if (!title) return names.length ? names.join(", ") : null;
    return names.length ? `${title}: ${names.join(", ")}` : title;
  }
  return null;
}

/**
 * The tool's own sentence for the call ("Delete note #2: “buy milk”"), or null when it has
 * none or when it no longer says what ran: the confirmation describes the proposal, and an
 * edited call ran with other args ("Add a note: buy milk", not the proposed "“buy bread”").
 */
export function confirmationSummary(call: Pick<ToolCallOut, "confirmation" | "executed_args" | "proposed_args">): string | null {
  return edited(call) ? null : call.confirmation?.summary || null;
}

function edited(call: Pick<ToolCallOut, "executed_args" | "proposed_args">): boolean {
  return call.executed_args != null && canonical(call.executed_args) !== canonical(call.proposed_args ?? null);
}

/** JSON with object keys sorted, so equal args compare equal whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v != null && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

function fieldsLine(schema: unknown, args: JsonObject): string {
  return argsSummary(schema, args, Number.MAX_SAFE_INTEGER);
}

/**
 * The whole result text in the person's words: the error's message, a loaded skill's new tools,
 * or the tool's text; hidden characters read `[U+202E]` (see cards/reveal).
 */
export function resultText(
  call: ToolCallOut,
  tools: Record<string, ToolOut>,
  toolMessage?: Pick<MessageOut, "content">,
): string {
  return reveal(rawResultText(call, tools, toolMessage));
}

function rawResultText(call: ToolCallOut, tools: Record<string, ToolOut>, toolMessage?: Pick<MessageOut, "content">): string {
  if (call.error) return call.error.message;
  // A loaded skill's result is its instructions for the model: never the person's to read.
  if (call.name === LOAD_SKILL) return call.result_data != null ? skillLoadedText(call, tools) : "";
  // An answered question's result is the answer worded for the model (a form's JSON).
  if (call.status === "succeeded" && isQuestion(call, tools[call.name])) {
    const words = answerWords(call);
    if (words) return words;
  }
  return call.result_text ?? toolMessage?.content ?? "";
}

/** The result as one short line; empty while nothing came back. */
export function resultSummary(
  call: ToolCallOut,
  tools: Record<string, ToolOut>,
  toolMessage?: Pick<MessageOut, "content">,
): string {
  return oneLine(resultText(call, tools, toolMessage));
}

/**
 * Who or what closed a call, in the log row's words: "by you", "by bob", "allowed without
 * asking"; for a call nobody decided, "" when its result already says what closed it ("You
 * sent a new message."), else "closed before anyone decided" / "nobody decided in time";
 * "" while it waits.
 */
export function decidedBy(
  call: Pick<ToolCallOut, "decision" | "permission" | "status" | "error">,
  me: Pick<MeOut, "id"> | null,
): string {
  const d = call.decision;
  if (d) {
    if (me && d.user_id === me.id) return "by you";
    const named = (d as { user_name?: unknown }).user_name;
    return typeof named === "string" && named ? `by ${reveal(named)}` : "by someone else";
  }
  if (call.permission === "ALLOW") return "allowed without asking";
  const said = Boolean(call.error?.message?.trim());
  if (call.status === "cancelled") return said ? "" : "closed before anyone decided";
  if (call.status === "expired") return said ? "" : "nobody decided in time";
  return "";
}

/** "14:03:27" in the browser's time zone (24-hour, seconds). */
export function timeOfDay(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}
