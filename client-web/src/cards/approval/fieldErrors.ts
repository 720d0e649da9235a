import type { ErrorSchema } from "@rjsf/utils";
import type { FieldError } from "../../api/types";
import { pathLabels } from "../fields/schemaFields";

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

/** The same path in the person's words, as the form labels it (titles from `schema` when
 * given): "Note number", "Items › 1 › Name"; "The details" for the whole. */
export function pathWords(path: FieldError["path"], schema?: unknown): string {
  const segs = pathSegments(path);
  if (segs.length === 0) return "The details";
  return pathLabels(schema, segs).join(" › ");
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
