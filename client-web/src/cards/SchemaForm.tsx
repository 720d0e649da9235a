/**
 * An rjsf form for a JSON Schema. Only the browser's own checks (required, min/max of
 * number inputs) run here; the rest is the server's: its 422 field errors show next to the
 * fields (extraErrors) and as a list (data-testid="field-error"). A text field whose value holds
 * a hidden character (an RTL override) says so under it, as the card's sentence shows it
 * (see ./hiddenText).
 * Import it lazily: rjsf + Ajv are most of the bundle.
 */
import Form from "@rjsf/core";
import type { RJSFSchema, UiSchema } from "@rjsf/utils";
import validator from "@rjsf/validator-ajv8";
import { useMemo, useState, type ReactNode } from "react";
import type { FieldError, JsonObject } from "../api/types";
import { pathLabel, pathWords, toErrorSchema } from "./approval/fieldErrors";
import { humanise } from "./fields/schemaFields";
import { reveal } from "./reveal";
import { AddItemButton, ItemButtons } from "./formButtons";
import { ListItemField } from "./formItems";
import { RevealingInput, revealingWidgets } from "./hiddenText";

interface Props {
  schema: JsonObject;
  formData: JsonObject;
  fieldErrors: FieldError[];
  disabled: boolean;
  idPrefix: string;
  /** Label of the error list, for screen readers. */
  errorsLabel: string;
  onChange: (values: JsonObject) => void;
  onSubmit: (values: JsonObject) => void;
  /** The submit (and other) buttons. */
  children: ReactNode;
}

/**
 * Long or multi-line text gets a textarea (an <input> would drop its line breaks): string
 * properties of `schema` whose value in `data` has a line break or is long, or whose schema
 * allows more than 200 characters.
 */
export function textAreas(schema: JsonObject, data: JsonObject): UiSchema {
  const props = schema.properties;
  const ui: UiSchema = {};
  if (!props || typeof props !== "object") return ui;
  for (const [key, prop] of Object.entries(props as Record<string, unknown>)) {
    if (!prop || typeof prop !== "object") continue;
    const p = prop as JsonObject;
    if (p.type !== "string" || "enum" in p || "format" in p) continue;
    const value = data[key];
    const long = typeof value === "string" && (value.includes("\n") || value.length > 80);
    const roomy = typeof p.maxLength !== "number" || p.maxLength > 200;
    if (long || (roomy && typeof value === "string" && value.length > 40)) {
      const lines = typeof value === "string" ? value.split("\n").length : 3;
      ui[key] = { "ui:widget": "textarea", "ui:options": { rows: Math.min(16, Math.max(3, lines)) } };
    }
  }
  return ui;
}

/**
 * Labels in the person's words: rjsf labels a property without a `title` by its raw key
 * ("due_date"); give it the same label the card's details show ("Due date"), at every
 * level of nested objects, lists of objects included; a title or description holding a
 * bidirectional control or a control character reads `[U+202E]` (see ./reveal). Merged into
 * `ui` (the text areas), which it returns.
 */
export function fieldTitles(schema: unknown, ui: UiSchema = {}): UiSchema {
  const props = schema && typeof schema === "object" ? (schema as JsonObject).properties : undefined;
  if (!props || typeof props !== "object") return ui;
  for (const [key, prop] of Object.entries(props as Record<string, unknown>)) {
    if (!prop || typeof prop !== "object") continue;
    const p = prop as JsonObject;
    const own = (ui[key] ?? {}) as UiSchema;
    const title = typeof p.title === "string" && p.title ? p.title : null;
    const labelled = title === null ? { ...own, "ui:title": reveal(humanise(key)) } : reveal(title) !== title ? { ...own, "ui:title": reveal(title) } : own;
    const described = typeof p.description === "string" && reveal(p.description) !== p.description ? { ...labelled, "ui:description": reveal(p.description) } : labelled;
    const titled = choiceNames(p, described);
    const items = p.type === "array" && p.items && typeof p.items === "object" ? (p.items as JsonObject) : null;
    if (items?.type === "object") titled.items = fieldTitles(items, (titled.items ?? {}) as UiSchema);
    else if (items) titled.items = choiceNames(items, (titled.items ?? {}) as UiSchema);
    ui[key] = p.type === "object" ? fieldTitles(p, titled) : titled;
  }
  return ui;
}

/**
 * The options of a choice field in words: rjsf lists a plain `enum`'s raw values ("free",
 * "pro") and a `oneOf`/`anyOf` option without a `title` by its raw `const`. Each option gets
 * its humanised value ("Free", "Pro plus") unless the schema titles it. Merged into `ui`,
 * which it returns.
 */
export function choiceNames(prop: JsonObject, ui: UiSchema): UiSchema {
  const word = (value: unknown) => reveal(typeof value === "string" ? humanise(value) : String(value));
  if (Array.isArray(prop.enum) && !ui["ui:enumNames"]) return { ...ui, "ui:enumNames": prop.enum.map(word) };
  for (const alt of ["oneOf", "anyOf"] as const) {
    const options = prop[alt];
    if (!Array.isArray(options) || ui[alt]) continue;
    const named = options.map((o) => {
      const opt = o && typeof o === "object" ? (o as JsonObject) : {};
      const titled = typeof opt.title === "string" && opt.title;
      return titled || !("const" in opt) ? {} : { "ui:title": word(opt.const) };
    });
    if (named.some((n) => "ui:title" in n)) return { ...ui, [alt]: named };
  }
  return ui;
}

/** Named buttons for list fields (see ./formButtons); inputs that show hidden characters (./hiddenText). */
const templates = { ArrayFieldItemButtonsTemplate: ItemButtons, BaseInputTemplate: RevealingInput, ButtonTemplates: { AddButton: AddItemButton } };

/** List items labelled "Tag 1", "Tag 2" (see ./formItems). */
const fields = { ArraySchemaField: ListItemField };

/** rjsf's Ajv is draft-07; the server validates with its own 2020-12 schema, so drop `$schema`. */
export function formSchema(schema: JsonObject): RJSFSchema {
  const { $schema: _ignored, ...rest } = schema;
  return rest as RJSFSchema;
}

export function SchemaForm({ schema, formData, fieldErrors, disabled, idPrefix, errorsLabel, onChange, onSubmit, children }: Props) {
  const rjsfSchema = useMemo(() => formSchema(schema), [schema]);
  const extraErrors = useMemo(() => toErrorSchema(fieldErrors), [fieldErrors]);
  // Decided once, from the first values (a widget must not change while the person types).
  const [uiSchema] = useState(() => fieldTitles(schema, textAreas(schema, formData)));
  return (
    <div className="edit-form">
      {fieldErrors.length > 0 && (
        <ul className="field-errors" aria-label={errorsLabel}>
          {fieldErrors.map((e, i) => (
            <li key={i} data-testid="field-error" data-path={pathLabel(e.path)} data-rule={e.rule}>
              <strong>{pathWords(e.path, schema)}</strong>: {e.message}
            </li>
          ))}
        </ul>
      )}
      <Form
        schema={rjsfSchema}
        uiSchema={uiSchema}
        templates={templates}
        fields={fields}
        widgets={revealingWidgets}
        validator={validator}
        formData={formData}
        idPrefix={idPrefix}
        noValidate
        liveValidate={false}
        showErrorList={false}
        extraErrors={extraErrors}
        disabled={disabled}
        onChange={(e) => onChange((e.formData ?? {}) as JsonObject)}
        onSubmit={(e) => onSubmit((e.formData ?? {}) as JsonObject)}
      >
        {children}
      </Form>
    </div>
  );
}
