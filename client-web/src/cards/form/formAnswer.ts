/**
 * `ask.form` (args {title, fields}): `fields` is a flat JSON Schema object written by the
 * model; the answer is a respond whose message is JSON.stringify(values).
 */
import type { ApiError } from "../../api/client";
import type { FieldError, JsonObject, ToolCallOut } from "../../api/types";
import { fieldErrorsFrom } from "../approval/fieldErrors";
import { reveal } from "../reveal";
import { choiceWord } from "../fields/schemaFields";

export interface FormQuestion {
  title: string;
  /** The schema rjsf renders (the title is the card's heading, not repeated inside). */
  schema: JsonObject;
}

export function formQuestionOf(call: Pick<ToolCallOut, "proposed_args">): FormQuestion {
  const args = call.proposed_args ?? {};
  const fields = isObject(args.fields) ? args.fields : { type: "object", properties: {} };
  const { title: _title, ...schema } = fields;
  return { title: typeof args.title === "string" ? args.title : "", schema };
}

/** The respond message for the form's values. */
export function formMessage(values: JsonObject): string {
  return JSON.stringify(values);
}

/** The values the recorded respond submitted (null when there is none or it is not an object). */
export function submittedValues(call: Pick<ToolCallOut, "decision">): JsonObject | null {
  const d = call.decision;
  if (!d || d.type !== "respond" || d.message == null) return null;
  try {
    const value: unknown = JSON.parse(d.message);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

export interface AnswerRow {
  name: string;
  label: string;
  value: string;
}

/** Each field with its title and the submitted value, in the schema's order (then extra keys). */
export function answerRows(schema: JsonObject, values: JsonObject): AnswerRow[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const names = [...Object.keys(properties), ...Object.keys(values).filter((k) => !(k in properties))];
  return names.map((name) => {
    const field = properties[name];
    const title = isObject(field) && typeof field.title === "string" && field.title ? field.title : name;
    const value = values[name];
    // A choice reads as the form listed it ("Pro", an option's title), not its raw value.
    const chosen = typeof value === "string" && value ? choiceWord(field, value) : null;
    return { name, label: reveal(title), value: chosen != null ? reveal(chosen) : display(value) };
  });
}

/** One line of the answered fields: "Name: Ada · Email: ada@example.com" ("nothing" when none). */
export function answerSummary(rows: AnswerRow[]): string {
  const answered = rows.filter((r) => r.value !== EMPTY);
  return answered.length > 0 ? answered.map((r) => `${r.label}: ${r.value}`).join(" · ") : "nothing";
}

/**
 * What a failed respond means for the form: field errors (shown by field) or, when the
 * server gave none, just its message.
 */
export function formErrors(err: ApiError): { fieldErrors: FieldError[]; message: string | null } {
  const fieldErrors = fieldErrorsFrom(err.details);
  return { fieldErrors, message: fieldErrors.length > 0 ? null : err.message };
}

const EMPTY = "—";

function display(value: unknown): string {
  if (value === undefined || value === null || value === "") return EMPTY;
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (typeof value === "object") return reveal(JSON.stringify(value));
  return reveal(String(value));
}

function isObject(value: unknown): value is JsonObject {
  return !!value && typeof value === "object" && !Array.isArray(value);
}
