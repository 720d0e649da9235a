/** The form the person fills in for `ask.form` (rjsf; loaded lazily by FormCard). */
import { useState } from "react";
import type { FieldError, JsonObject } from "../../api/types";
import { SchemaForm } from "../SchemaForm";

interface Props {
  schema: JsonObject;
  fieldErrors: FieldError[];
  disabled: boolean;
  idPrefix: string;
  onSubmit: (values: JsonObject) => void;
}

export function AnswerForm({ schema, fieldErrors, disabled, idPrefix, onSubmit }: Props) {
  const [values, setValues] = useState<JsonObject>({});
  return (
    <SchemaForm
      schema={schema}
      formData={values}
      fieldErrors={fieldErrors}
      disabled={disabled}
      idPrefix={idPrefix}
      errorsLabel="Errors in your answer"
      onChange={setValues}
      onSubmit={onSubmit}
    >
      <div className="actions">
        <button type="submit" className="primary" data-testid="form-submit" disabled={disabled}>
          Submit
        </button>
      </div>
    </SchemaForm>
  );
}
