/** The form the person fills in for `ask.form` (rjsf; loaded lazily by FormCard), with Submit and Decline. */
import { useState } from "react";
import type { FieldError, JsonObject } from "../../api/types";
import { actionName } from "../actionName";
import { SchemaForm } from "../SchemaForm";

interface Props {
  schema: JsonObject;
  fieldErrors: FieldError[];
  disabled: boolean;
  idPrefix: string;
  onSubmit: (values: JsonObject) => void;
  /** What the form asks (its title), named by its buttons for screen readers. */
  subject: string;
  /** Declines to answer (a reject). */
  onDecline: () => void;
}

export function AnswerForm({ schema, fieldErrors, disabled, idPrefix, subject, onSubmit, onDecline }: Props) {
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
        <button type="submit" className="primary" data-testid="form-submit" disabled={disabled} aria-label={actionName("Submit", subject)}>
          Submit
        </button>
        <button type="button" className="danger" data-testid="form-decline" disabled={disabled} aria-label={actionName("Decline", subject)} onClick={onDecline}>
          Decline
        </button>
      </div>
    </SchemaForm>
  );
}
