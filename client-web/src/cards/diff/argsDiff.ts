/**
 * What an edit changed: proposed → executed arguments, field by field (labels from the tool's
 * schema), with a line diff for long text. Line diffs use the `diff` package.
 */
import { diffLines } from "diff";
import type { JsonObject } from "../../api/types";
import { fieldLabel, orderedKeys } from "../fields/schemaFields";
import { charCount, reveal } from "../reveal";

export type DiffLineKind = "same" | "added" | "removed";

export interface DiffLine {
  kind: DiffLineKind;
  text: string;
}

export interface FieldChange {
  key: string;
  label: string;
  kind: "added" | "removed" | "changed";
  before: string;
  after: string;
  /** A line diff when either side is long text; null for short values. */
  lines: DiffLine[] | null;
}

/** Text past this (or with a line break) is compared line by line. */
export const LONG_TEXT = 80;
/** A line diff that takes longer than this gives up (both sides are shown instead). */
const DIFF_TIMEOUT_MS = 400;

export function isLongText(s: string): boolean {
  return s.includes("\n") || charCount(s) > LONG_TEXT;
}

/** A value as the person reads it: strings as they are, everything else as compact JSON. */
export function valueText(value: unknown): string {
  if (value === undefined) return "";
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Line by line changes from `before` to `after`, each line as shown (hidden characters as
 * `[U+202E]`, see ../reveal); null when the texts are too different to compare in time (the
 * caller then shows both sides).
 */
export function lineDiff(before: string, after: string): DiffLine[] | null {
  // Both end with a line break, so a last line is not "changed" just for gaining one.
  const end = (s: string) => (s === "" || s.endsWith("\n") ? s : `${s}\n`);
  const changes = diffLines(end(before), end(after), { timeout: DIFF_TIMEOUT_MS });
  if (!changes) return null;
  const out: DiffLine[] = [];
  for (const c of changes) {
    const kind: DiffLineKind = c.added ? "added" : c.removed ? "removed" : "same";
    const lines = c.value.endsWith("\n") ? c.value.slice(0, -1).split("\n") : c.value.split("\n");
    for (const text of lines) out.push({ kind, text: reveal(text) });
  }
  return out;
}

function same(a: unknown, b: unknown): boolean {
  return valueText(a) === valueText(b);
}

/** The fields an edit changed, in the schema's order; labels and values as shown (see ../reveal). */
export function argsChanges(schema: unknown, proposed: JsonObject | null | undefined, executed: JsonObject | null | undefined): FieldChange[] {
  const before = proposed ?? {};
  const after = executed ?? {};
  const keys = orderedKeys(schema, { ...before, ...after });
  const out: FieldChange[] = [];
  for (const key of keys) {
    const has0 = Object.hasOwn(before, key);
    const has1 = Object.hasOwn(after, key);
    if (has0 && has1 && same(before[key], after[key])) continue;
    const b = has0 ? reveal(valueText(before[key])) : "";
    const a = has1 ? reveal(valueText(after[key])) : "";
    const kind = !has0 ? "added" : !has1 ? "removed" : "changed";
    const lines = isLongText(a) || isLongText(b) ? lineDiff(b, a) : null;
    out.push({ key, label: reveal(fieldLabel(schema, key)), kind, before: b, after: a, lines });
  }
  return out;
}

export interface DiffHunk {
  kind: "lines";
  lines: DiffLine[];
}

export interface DiffGap {
  kind: "gap";
  /** Unchanged lines left out. */
  count: number;
}

/** A line diff with long unchanged runs folded to `context` lines around each change. */
export function foldUnchanged(lines: DiffLine[], context = 3): Array<DiffHunk | DiffGap> {
  const keep = new Array<boolean>(lines.length).fill(false);
  lines.forEach((l, i) => {
    if (l.kind === "same") return;
    for (let j = Math.max(0, i - context); j <= Math.min(lines.length - 1, i + context); j++) keep[j] = true;
  });
  const out: Array<DiffHunk | DiffGap> = [];
  let i = 0;
  while (i < lines.length) {
    if (keep[i]) {
      const run: DiffLine[] = [];
      while (i < lines.length && keep[i]) run.push(lines[i++]);
      out.push({ kind: "lines", lines: run });
    } else {
      let count = 0;
      while (i < lines.length && !keep[i]) (count++, i++);
      out.push({ kind: "gap", count });
    }
  }
  return out;
}

/** "+3 −1 lines" for a line diff. */
export function diffStats(lines: DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of lines) {
    if (l.kind === "added") added++;
    else if (l.kind === "removed") removed++;
  }
  return { added, removed };
}
