/**
 * The two kinds of choice card:
 * - "edit": tool `suggestions` ({options, option?}); a click decides edit with the option.
 * - "respond": `ask.choice` ({question, options, multiple?}); the answer is a respond whose
 *   message is the option, or a JSON list of the options when `multiple`.
 */
import type { JsonObject, ToolCallOut, ToolOut } from "../../api/types";
import { reveal } from "../reveal";
import { choiceWord } from "../fields/schemaFields";

export type ChoiceMode = "edit" | "respond";

export function choiceMode(call: Pick<ToolCallOut, "name" | "proposed_args">, tool?: Pick<ToolOut, "input_schema">): ChoiceMode {
  if (call.name === "suggestions") return "edit";
  if (call.name === "ask.choice") return "respond";
  const properties = tool?.input_schema?.properties;
  if (properties && typeof properties === "object") return "option" in properties ? "edit" : "respond";
  return "question" in (call.proposed_args ?? {}) ? "respond" : "edit";
}

export interface Question {
  question: string;
  options: string[];
  multiple: boolean;
}

export function questionOf(call: Pick<ToolCallOut, "proposed_args">): Question {
  const args = call.proposed_args ?? {};
  return {
    question: typeof args.question === "string" ? args.question : "",
    options: Array.isArray(args.options) ? args.options.map(String) : [],
    multiple: args.multiple === true,
  };
}

/** The respond message for the chosen options (kept in the options' order). */
export function choiceMessage(q: Question, chosen: Iterable<string>): string {
  const picked = new Set(chosen);
  const inOrder = q.options.filter((o) => picked.has(o));
  return q.multiple ? JSON.stringify(inOrder) : (inOrder[0] ?? "");
}

/** The options the recorded respond chose (read like the server: plain text or JSON). */
export function answeredOptions(call: Pick<ToolCallOut, "decision">): string[] {
  const d = call.decision;
  if (!d || d.type !== "respond" || d.message == null) return [];
  const decoded = parseJson(d.message);
  if (Array.isArray(decoded)) return decoded.filter((v): v is string => typeof v === "string");
  if (typeof decoded === "string") return [decoded];
  return [d.message.trim()];
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * What the person did by picking a suggestion (an `edit` that set `option`), as the card and
 * the audit say it: "Chose “Pixel”", the option as the tool's schema lists it (its title when
 * it has one); null when `args` chose nothing.
 */
export function choseText(args: JsonObject | null | undefined, tool?: Pick<ToolOut, "input_schema">): string | null {
  const option = args?.option;
  if (typeof option !== "string" || !option) return null;
  const properties = tool?.input_schema?.properties;
  const schema = properties && typeof properties === "object" ? (properties as Record<string, unknown>).option : undefined;
  return `Chose “${reveal(choiceWord(schema, option) ?? option)}”`;
}
