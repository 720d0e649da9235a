/**
 * Arguments as labelled fields, read from the tool's JSON Schema: the label is the
 * property's `title`, else its key humanised; properties come in the schema's order, then any
 * keys the schema does not name (in the arguments' order). A property's `description` is not
 * shown: it tells the model how to fill the field ("The skill's name, as listed under 'Skills
 * you can load'"), in words never written for the person.
 */
import type { JsonObject } from "../../api/types";
import { reveal } from "../reveal";

export type FieldKind = "text" | "number" | "boolean" | "empty" | "list" | "object";

export interface FieldNode {
  /** The property key (or the item index in a list). */
  key: string;
  label: string;
  kind: FieldKind;
  /** Text of a scalar as shown (strings as they are, line breaks kept; hidden characters as `[U+202E]`, see ../reveal). */
  text: string;
  /** Items of a list, or properties of an object. */
  children: FieldNode[];
}

/** Past this depth a nested value is shown as JSON text. */
const MAX_DEPTH = 6;

/** Words a key spells that people read in capitals ("id" → "ID", "api_urls" → "API URLs"). */
const ACRONYMS: Record<string, string> = Object.fromEntries(
  ["id", "url", "uri", "api", "ip", "uuid", "html", "json", "http", "sku", "vat", "iban"].flatMap((w) => [
    [w, w.toUpperCase()],
    [`${w}s`, `${w.toUpperCase()}s`],
  ]),
);

/**
 * A key in words, for a label the schema does not title: "due_date" → "Due date",
 * "noteId" → "Note ID", "id" → "ID", "x-ray" → "X ray".
 */
export function humanise(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_\-.]+/g, " ")
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => (Object.hasOwn(ACRONYMS, w) ? ACRONYMS[w] : w));
  if (!words.length) return key;
  const line = words.join(" ");
  return line.charAt(0).toUpperCase() + line.slice(1);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | null {
  return typeof value === "string" && value.trim() ? value : null;
}

/** The property schemas of an object schema (only own, object-valued entries). */
function propertiesOf(schema: unknown): Record<string, JsonObject> {
  const props = isObject(schema) ? schema.properties : undefined;
  const out: Record<string, JsonObject> = {};
  if (!isObject(props)) return out;
  for (const [k, v] of Object.entries(props)) out[k] = isObject(v) ? v : {};
  return out;
}

/** Keys in display order: the schema's first, then the rest of the value's. */
export function orderedKeys(schema: unknown, value: JsonObject): string[] {
  const props = Object.keys(propertiesOf(schema));
  const present = props.filter((k) => Object.hasOwn(value, k));
  const extra = Object.keys(value).filter((k) => !props.includes(k));
  return [...present, ...extra];
}

function scalarText(value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (typeof value === "number") return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A choice's value as the form lists it (`choiceNames` in ../SchemaForm): the title of its
 * `oneOf`/`anyOf` option, else the value humanised when the schema lists it ("pro" → "Pro");
 * null when `schema` offers no such choice.
 */
export function choiceWord(schema: unknown, value: string): string | null {
  if (!isObject(schema)) return null;
  for (const alt of [schema.oneOf, schema.anyOf]) {
    if (!Array.isArray(alt)) continue;
    const option = alt.find((o) => isObject(o) && o.const === value);
    if (isObject(option)) return str(option.title) ?? humanise(value);
  }
  return Array.isArray(schema.enum) && schema.enum.includes(value) ? humanise(value) : null;
}

function node(key: string, label: string, schema: unknown, value: unknown, depth: number): FieldNode {
  const base = { key, label: reveal(label), text: "", children: [] as FieldNode[] };
  if (value === null || value === undefined || value === "") return { ...base, kind: "empty", text: "—" };
  if (typeof value === "string") return { ...base, kind: "text", text: reveal(choiceWord(schema, value) ?? value) };
  if (typeof value === "number") return { ...base, kind: "number", text: scalarText(value) };
  if (typeof value === "boolean") return { ...base, kind: "boolean", text: scalarText(value) };
  if (depth >= MAX_DEPTH) return { ...base, kind: "text", text: reveal(scalarText(value)) };
  if (Array.isArray(value)) {
    const itemSchema = isObject(schema) ? schema.items : undefined;
    const children = value.map((item, i) => node(String(i), `${i + 1}`, itemSchema, item, depth + 1));
    return { ...base, kind: "list", children };
  }
  if (isObject(value)) return { ...base, kind: "object", children: fieldsOf(schema, value, depth + 1) };
  return { ...base, kind: "text", text: reveal(scalarText(value)) };
}

function fieldsOf(schema: unknown, value: JsonObject, depth: number): FieldNode[] {
  const props = propertiesOf(schema);
  return orderedKeys(schema, value).map((key) => {
    const prop = Object.hasOwn(props, key) ? props[key] : undefined;
    const label = str(prop?.title) ?? humanise(key);
    return node(key, label, prop, value[key], depth);
  });
}

/** The arguments of a call as fields, following `schema` (the tool's input_schema) when known. */
export function schemaFields(schema: unknown, args: JsonObject | null | undefined): FieldNode[] {
  return fieldsOf(schema, args ?? {}, 0);
}

/** The label of a top-level argument. */
export function fieldLabel(schema: unknown, key: string): string {
  const props = propertiesOf(schema);
  return (Object.hasOwn(props, key) ? str(props[key].title) : null) ?? humanise(key);
}

/**
 * The labels along a path of keys and list indexes, as the form shows them (the server's
 * `tools.schema.labels.field_label`): each key's schema `title`, else the key in words; an
 * index names the item as the form does, replacing its list's label (`itemLabel`):
 * `["items", "0", "unit_price"]` → `["Item 1", "Unit price"]`, `["tags", "1"]` → `["Tag 2"]`.
 */
export function pathLabels(schema: unknown, segments: readonly string[]): string[] {
  let node: unknown = schema;
  const labels: string[] = [];
  for (const key of segments) {
    if (/^\d+$/.test(key)) {
      // An item is named as the form labels it: "Tag 2", not "Tags › 2".
      node = isObject(node) ? node.items : undefined;
      const title = isObject(node) && typeof node.title === "string" ? node.title : undefined;
      labels.push(itemLabel(labels.pop() ?? "", Number(key), title));
      continue;
    }
    const props = propertiesOf(node);
    labels.push(fieldLabel(node, key));
    node = Object.hasOwn(props, key) ? props[key] : undefined;
  }
  return labels;
}

/** "Tags" → "Tag", "Categories" → "Category", "Boxes" → "Box"; a title that is not a plural is kept. */
export function singular(title: string): string {
  const t = title.trim();
  if (/[^aeiou]ies$/i.test(t)) return `${t.slice(0, -3)}y`;
  if (/(ss|us|is)$/i.test(t)) return t; // "Address", "Status", "Analysis": not plurals
  if (/(ches|shes|sses|xes|zes)$/i.test(t)) return t.slice(0, -2);
  if (/[^s]s$/i.test(t)) return t.slice(0, -1);
  return t;
}

/** The label of item `index` (from 0) of the list titled `list`: "Tag 1", "Attendee list item 1", "Item 1". */
export function itemLabel(list: string, index: number, itemTitle?: string): string {
  const n = index + 1;
  if (itemTitle?.trim()) return `${itemTitle.trim()} ${n}`;
  const base = list.trim();
  if (!base) return `Item ${n}`;
  const one = singular(base);
  return one === base ? `${base} item ${n}` : `${one} ${n}`;
}

/** One line for a row: "Text: buy milk · Tags: a, b", cut at `limit` characters. */
export function argsSummary(schema: unknown, args: JsonObject | null | undefined, limit = 120): string {
  const parts = schemaFields(schema, args).map((f) => `${f.label}: ${flat(f)}`);
  const line = parts.join(" · ");
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

function flat(f: FieldNode): string {
  if (f.kind === "list") return f.children.map(flat).join(", ") || "—";
  if (f.kind === "object") return f.children.map((c) => `${c.label}: ${flat(c)}`).join(", ") || "—";
  return f.text.replace(/\s+/g, " ").trim();
}
