import type { ErrorSchema } from "@rjsf/utils";
import type { FieldError } from "../../api/types";
import { humanise } from "../fields/schemaFields";

type Schema = Record<string, unknown>;

function asSchema(value: unknown): Schema | null {
  return value && typeof value === "object" && !Array.isArray(value) ? (value as Schema) : null;
}

/** The schema of one step down `schema`: a property's, or a list's items'. */
function childSchema(schema: Schema | null, key: string, index: boolean): Schema | null {
  if (!schema) return null;
  if (index) return asSchema(schema.items);
  const props = asSchema(schema.properties);
  return props && Object.hasOwn(props, key) ? asSchema(props[key]) : null;
}

/** Splits a field error path into keys: a list as sent by the server, or a pointer / dotted string. */
export function pathSegments(path: FieldError["path"]): string[] {
  if (Array.isArray(path)) return path.map(String);
  const s = String(path ?? "").replace(/^\$/, "").replace(/\[(\d+)\]/g, ".$1");
  if (s.startsWith("/")) return s.slice(1).split("/").filter(Boolean).map((k) => k.replace(/~1/g, "/").replace(/~0/g, "~"));
  return s.split(".").filter(Boolean);
}

/** "title", "items[0].name", or "(arguments)" for the root. */
export function pathLabel(path: FieldError["path"]): string {
  const segs = pathSegments(path);
  if (segs.length === 0) return "(arguments)";
  return segs.map((k, i) => (/^\d+$/.test(k) ? `[${k}]` : i === 0 ? k : `.${k}`)).join("");
}

/**
 * The same path in the person's words, as the form labels it: each property's `title` in
 * `schema` (the tool's input schema) when it has one, else its key humanised ("Note",
 * "Items › 1 › Unit price"); list positions count from 1.
 */
export function pathWords(path: FieldError["path"], schema?: unknown): string {
  const segs = pathSegments(path);
  if (segs.length === 0) return "The arguments";
  let node = asSchema(schema);
  return segs
    .map((k) => {
      const index = /^\d+$/.test(k);
      node = childSchema(node, k, index);
      if (index) return String(Number(k) + 1);
      const title = node?.title;
      return typeof title === "string" && title.trim() ? title : humanise(k);
    })
    .join(" › ");
}

/** Server field errors as rjsf `extraErrors`, so each shows next to its field. */
export function toErrorSchema(errors: FieldError[]): ErrorSchema {
  const root: ErrorSchema = {};
  for (const err of errors) {
    let node = root as Record<string, unknown>;
    for (const key of pathSegments(err.path)) {
      node[key] = (node[key] as Record<string, unknown> | undefined) ?? {};
      node = node[key] as Record<string, unknown>;
    }
    const list = (node.__errors as string[] | undefined) ?? [];
    node.__errors = [...list, err.message];
  }
  return root;
}

/** Reads `details.errors` from a 422 `invalid_args` answer. */
export function fieldErrorsFrom(details: unknown): FieldError[] {
  const errors = (details as { errors?: unknown } | null | undefined)?.errors;
  if (!Array.isArray(errors)) return [];
  return errors.filter(
    (e): e is FieldError => !!e && typeof e === "object" && typeof (e as FieldError).message === "string",
  );
}
