/**
 * A call's arguments as labelled fields (see schemaFields): text keeps its line breaks in a
 * scrollable block, lists are lists, nested objects are indented. Long text folds with
 * "Show all". Everything is rendered as text (never HTML).
 */
import { useState } from "react";
import type { JsonObject } from "../../api/types";
import { charCount, reveal, sliceChars } from "../reveal";
import { schemaFields, type FieldNode } from "./schemaFields";

/** Text past either bound folds. */
export const FOLD_LINES = 12;
export const FOLD_CHARS = 1500;

/** The folded preview of a long text, or null when it is short enough to show whole. */
export function foldText(text: string, lines = FOLD_LINES, chars = FOLD_CHARS): { preview: string; lines: number } | null {
  const all = text.split("\n");
  if (all.length <= lines && charCount(text) <= chars) return null;
  const preview = sliceChars(all.slice(0, lines).join("\n"), chars);
  return { preview: `${preview}…`, lines: all.length };
}

export function ArgFields({ schema, args, testId = "arg-fields" }: { schema: unknown; args: JsonObject | null | undefined; testId?: string }) {
  const fields = schemaFields(schema, args);
  if (fields.length === 0) return <p className="muted small">No arguments.</p>;
  return <FieldList fields={fields} testId={testId} />;
}

function FieldList({ fields, testId }: { fields: FieldNode[]; testId?: string }) {
  return (
    <dl className="arg-fields" data-testid={testId}>
      {fields.map((f) => (
        <div key={f.key} className="arg-field" data-testid="arg-field" data-key={f.key}>
          <dt>
            <span className="arg-label">{f.label}</span>
          </dt>
          <dd>
            <FieldValue field={f} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

function FieldValue({ field }: { field: FieldNode }) {
  switch (field.kind) {
    case "list":
      return field.children.length === 0 ? (
        <span className="muted">(none)</span>
      ) : (
        <ul className="arg-list">
          {field.children.map((c) => (
            <li key={c.key}>{c.kind === "object" ? <FieldList fields={c.children} /> : <FieldValue field={c} />}</li>
          ))}
        </ul>
      );
    case "object":
      return field.children.length === 0 ? <span className="muted">(empty)</span> : <FieldList fields={field.children} />;
    case "text":
      return <LongText text={field.text} />;
    case "empty":
      return <span className="muted">—</span>;
    default:
      return <span className="arg-scalar">{field.text}</span>;
  }
}

/**
 * Short text inline; multi-line or long text in a block that folds past FOLD_LINES / FOLD_CHARS.
 * Hidden characters read `[U+202E]` (see ../reveal); sizes count characters (code points).
 */
export function LongText({ text: given }: { text: string }) {
  const [open, setOpen] = useState(false);
  const text = reveal(given);
  if (!text.includes("\n") && charCount(given) <= 120) return <span className="arg-scalar">{text}</span>;
  const fold = foldText(text);
  return (
    <div className="arg-text-wrap">
      <pre className="arg-text" data-testid="arg-text" tabIndex={0}>
        {open || !fold ? text : fold.preview}
      </pre>
      {fold && (
        <button type="button" className="link small" aria-expanded={open} data-testid="arg-show-all" onClick={() => setOpen(!open)}>
          {open ? "Show less" : `Show all (${fold.lines.toLocaleString()} lines, ${charCount(given).toLocaleString()} characters)`}
        </button>
      )}
    </div>
  );
}
