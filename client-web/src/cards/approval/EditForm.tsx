/**
 * The edit form, generated from the tool's input_schema with rjsf and prefilled with the
 * proposed args. Validation is the server's: its 422 field errors show next to the fields
 * (extraErrors) and as a list.
 */
import Form from "@rjsf/core";
import type { RJSFSchema } from "@rjsf/utils";
import validator from "@rjsf/validator-ajv8";
import { useMemo, useState } from "react";
import type { FieldError, JsonObject } from "../../api/types";
import { pathLabel, toErrorSchema } from "./fieldErrors";

interface Props {
  schema: JsonObject;
  initial: JsonObject;
  fieldErrors: FieldError[];
  disabled: boolean;
  idPrefix: string;
  onSubmit: (args: JsonObject) => void;
  onCancel: () => void;
}

/** rjsf's Ajv is draft-07; the server validates with its own 2020-12 schema, so drop `$schema`. */
function formSchema(schema: JsonObject): RJSFSchema {
  const { $schema: _ignored, ...rest } = schema;
  return rest as RJSFSchema;
}

export function EditForm({ schema, initial, fieldErrors, disabled, idPrefix, onSubmit, onCancel }: Props) {
  const [formData, setFormData] = useState<JsonObject>(initial);
  const rjsfSchema = useMemo(() => formSchema(schema), [schema]);
  const extraErrors = useMemo(() => toErrorSchema(fieldErrors), [fieldErrors]);

  return (
    <div className="edit-form">
      {fieldErrors.length > 0 && (
        <ul className="field-errors" aria-label="Errors in the arguments">
          {fieldErrors.map((e, i) => (
            <li key={i} data-testid="field-error" data-path={pathLabel(e.path)} data-rule={e.rule}>
              <strong>{pathLabel(e.path)}</strong>: {e.message}
            </li>
          ))}
        </ul>
      )}
      <Form
        schema={rjsfSchema}
        validator={validator}
        formData={formData}
        idPrefix={idPrefix}
        noValidate
        liveValidate={false}
        showErrorList={false}
        extraErrors={extraErrors}
        disabled={disabled}
        onChange={(e) => setFormData((e.formData ?? {}) as JsonObject)}
        onSubmit={(e) => onSubmit((e.formData ?? {}) as JsonObject)}
      >
        <div className="actions">
          <button type="submit" className="primary" data-testid="edit-submit" disabled={disabled}>
            Save and approve
          </button>
          <button type="button" disabled={disabled} onClick={onCancel}>
            Cancel
          </button>
        </div>
      </Form>
    </div>
  );
}
