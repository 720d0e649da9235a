/**
 * The edit form, generated from the tool's input_schema with rjsf and prefilled with the
 * proposed args. Validation is the server's: its 422 field errors show next to the fields
 * (extraErrors) and as a list.
 */
import { useState } from "react";
import type { FieldError, JsonObject } from "../../api/types";
import { SchemaForm } from "../SchemaForm";

interface Props {
  schema: JsonObject;
  initial: JsonObject;
  fieldErrors: FieldError[];
  disabled: boolean;
  idPrefix: string;
  onSubmit: (args: JsonObject) => void;
  onCancel: () => void;
}

export function EditForm({ schema, initial, fieldErrors, disabled, idPrefix, onSubmit, onCancel }: Props) {
  const [formData, setFormData] = useState<JsonObject>(initial);
  return (
    <div
      className="edit-form-wrap"
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
          <button type="submit" className="primary" data-testid="edit-submit" disabled={disabled}>
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
