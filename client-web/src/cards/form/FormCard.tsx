/**
 * `ask.form` (card hint `form`): the model's flat schema as a form; submitting answers with
 * a respond whose message is the values as JSON. The server checks the answer: its 422
 * field errors show by field. Decline rejects the question instead (shown as "Declined").
 * Once decided, the submitted values are shown read-only.
 */
import { lazy, Suspense, useState } from "react";
import type { FieldError, JsonObject } from "../../api/types";
import { DecisionSummary } from "../DecisionSummary";
import { DECLINED, decline } from "../decline";
import { statusWords } from "../status/status";
import type { CardProps } from "../types";
import { answerRows, answerSummary, formErrors, formMessage, formQuestionOf, submittedValues } from "./formAnswer";
import { reveal } from "../reveal";

// rjsf + Ajv: loaded when a form is first shown.
const AnswerForm = lazy(() => import("./AnswerForm").then((m) => ({ default: m.AnswerForm })));

export function FormCard({ call, title, live, busy, decide }: CardProps) {
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<FieldError[]>([]);
  const question = formQuestionOf(call);
  const submitted = submittedValues(call);

  const submit = async (values: JsonObject) => {
    setError(null);
    const err = await decide({ type: "respond", message: formMessage(values) });
    if (!err) {
      setFieldErrors([]);
      return;
    }
    if (err.status === 409) return; // the host refreshes and shows the recorded decision
    const mapped = formErrors(err);
    setFieldErrors(mapped.fieldErrors);
    setError(mapped.message);
  };

  const onDecline = async () => {
    setError(null);
    setFieldErrors([]);
    setError(await decline(decide));
  };

  return (
    <section className="card form-card" aria-label={`Form: ${question.title || title}`}>
      <header className="card-head">
        <h4>{reveal(question.title || title)}</h4>
      </header>
      {call.decision ? (
        <DecisionSummary
          call={call}
          showArgs={false}
          rejected={DECLINED}
          answer={submitted ? answerSummary(answerRows(question.schema, submitted)) : null}
        />
      ) : live ? (
        <Suspense fallback={<p className="muted small">Loading the form…</p>}>
          <AnswerForm
            schema={question.schema}
            fieldErrors={fieldErrors}
            disabled={busy}
            idPrefix={`form_${call.id}`}
            subject={question.title || title}
            onSubmit={(values) => void submit(values)}
            onDecline={() => void onDecline()}
          />
        </Suspense>
      ) : (
        <p className="muted small">Not waiting for an answer ({statusWords(call).label.toLowerCase()}).</p>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
