/**
 * The items of a list field read as a person expects: "Tag 1", "Tag 2" under "Tags", not
 * rjsf's "Tags-1*". Every item of a list is "required" to rjsf (its type is not null), so
 * each label carried the required mark; the list's own title keeps it once, when the list
 * itself is required. Each item's label names its input ("Tag 1" is its accessible name).
 * Used by SchemaForm as rjsf's `ArraySchemaField`.
 */
import type { FieldProps } from "@rjsf/utils";
import { humanise } from "./fields/schemaFields";

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

/** rjsf's field for one list item: the default field, labelled "Tag 1" and not marked required. */
export function ListItemField(props: FieldProps) {
  const { SchemaField } = props.registry.fields;
  const index = props.index ?? 0;
  // rjsf names the item "<list title>-<n>"; the list's title is what precedes that suffix.
  const titled = (props.title ?? "").replace(new RegExp(`-${index + 1}$`), "");
  // Without a schema title, rjsf uses the list's raw key ("due_dates"): word it as the card does.
  const key = (props.name ?? "").replace(new RegExp(`-${index}$`), "");
  const list = titled === key ? humanise(key) : titled;
  const own = props.uiSchema?.["ui:title"];
  const itemTitle = typeof own === "string" ? own : typeof props.schema.title === "string" ? props.schema.title : undefined;
  const uiSchema = { ...(props.uiSchema ?? {}), "ui:title": itemLabel(list, index, itemTitle) };
  return <SchemaField {...props} uiSchema={uiSchema} required={false} />;
}
