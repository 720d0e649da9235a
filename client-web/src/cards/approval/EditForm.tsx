/**
 * The edit form, generated from the tool's input_schema with rjsf and prefilled with the
 * proposed args. Validation is the server's: its 422 field errors show next to the fields
 * (extraErrors) and as a list.
 */
import { useEffect, useRef, useState } from "react";
import type { FieldError, JsonObject } from "../../api/types";
import { actionName } from "../actionName";
import { SchemaForm } from "../SchemaForm";

interface Props {
  schema: JsonObject;
  initial: JsonObject;
  fieldErrors: FieldError[];
  disabled: boolean;
  idPrefix: string;
  onSubmit: (args: JsonObject) => void;
  onCancel: () => void;
  /** What the edit is of (the card's summary or title), named by its buttons for screen readers. */
  subject: string;
}

export function EditForm({ schema, initial, fieldErrors, disabled, idPrefix, onSubmit, onCancel, subject }: Props) {
  const [formData, setFormData] = useState<JsonObject>(initial);
  const wrap = useRef<HTMLDivElement>(null);
  // The Edit button that opened the form is gone: the focus goes to the first field.
  useEffect(() => firstField(wrap.current)?.focus(), []);
  return (
    <div
      className="edit-form-wrap"
      ref={wrap}
      onKeyDown={(e) => {
        if (e.key === "Escape" && !disabled) {
          e.stopPropagation();
          onCancel();
        }
      }}
    >
      <SchemaForm
        schema={schema}
        formData={formData}
        fieldErrors={fieldErrors}
        disabled={disabled}
        idPrefix={idPrefix}
        errorsLabel="What needs fixing"
        onChange={setFormData}
        onSubmit={onSubmit}
      >
        <div className="actions">
          <button type="submit" className="primary" data-testid="edit-submit" disabled={disabled} aria-label={actionName("Save and approve", subject)}>
            Save and approve
          </button>
          <button type="button" disabled={disabled} onClick={onCancel}>
            Cancel
          </button>
        </div>
      </SchemaForm>
    </div>
  );
}

/** The first field of a form a person can type in, if any. */
export function firstField(root: HTMLElement | null): HTMLElement | null {
  return root?.querySelector<HTMLElement>("input:not([disabled]):not([type=hidden]), textarea:not([disabled]), select:not([disabled])") ?? null;
}
