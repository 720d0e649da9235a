import type { JsonObject } from "../../api/types";

export type Section = { key: string; markdown: string } | { key: string; json: unknown };

/** Each argument as a section: text as markdown, anything else as JSON. */
export function argSections(args: JsonObject | null): Section[] {
  return Object.entries(args ?? {}).map(([key, value]) =>
    typeof value === "string" ? { key, markdown: value } : { key, json: value },
  );
}
