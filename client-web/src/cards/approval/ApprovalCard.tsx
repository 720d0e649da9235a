/** The generic card: approve, edit (form from the tool's input_schema) or reject with a reason. */
import { lazy, Suspense, useId, useState } from "react";
import type { ApiError } from "../../api/client";
import type { FieldError, JsonObject } from "../../api/types";
import { JsonView } from "../../components/JsonView";
import { DecisionSummary } from "../DecisionSummary";
import { ToolCardHeader } from "../ToolCardHeader";
import type { CardProps } from "../types";
import { fieldErrorsFrom } from "./fieldErrors";

// rjsf + Ajv are most of the bundle: load them when a form is first opened.
const EditForm = lazy(() => import("./EditForm").then((m) => ({ default: m.EditForm })));

type Mode = "idle" | "reject" | "edit";

export function ApprovalCard({ call, tool, title, live, busy, decide }: CardProps) {
  const [mode, setMode] = useState<Mode>("idle");
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<FieldError[]>([]);
  const reasonId = useId();
  const args = call.proposed_args ?? {};

  const run = async (body: Parameters<typeof decide>[0]) => {
    setError(null);
    const err: ApiError | null = await decide(body);
    if (!err) {
      setMode("idle");
      setFieldErrors([]);
      return;
    }
    if (err.status === 409) return; // the host refreshes and shows the recorded decision
    setFieldErrors(fieldErrorsFrom(err.details));
    setError(err.message);
  };

  const submitEdit = (edited: JsonObject) => run({ type: "edit", args: edited });

  return (
    <section className="card approval-card" aria-label={`Approval: ${title}`}>
      <ToolCardHeader title={title} tool={tool} />
      {call.decision ? (
        <DecisionSummary call={call} />
      ) : (
        <>
          {mode !== "edit" && <JsonView value={args} />}
          {!live && <p className="muted small">Not waiting for a decision ({call.status}).</p>}
          {live && mode === "idle" && (
            <div className="actions">
              <button type="button" className="primary" data-testid="approve" disabled={busy} onClick={() => run({ type: "approve" })}>
                Approve
              </button>
              <button type="button" data-testid="edit" disabled={busy} onClick={() => setMode("edit")}>
                Edit
              </button>
              <button type="button" className="danger" data-testid="reject" disabled={busy} onClick={() => setMode("reject")}>
                Reject
              </button>
            </div>
          )}
          {live && mode === "reject" && (
            <form
              className="reject-form"
              onSubmit={(e) => {
                e.preventDefault();
                void run(reason.trim() ? { type: "reject", message: reason.trim() } : { type: "reject" });
              }}
            >
              <label htmlFor={reasonId}>Reason (optional)</label>
              <textarea
                id={reasonId}
                data-testid="reject-reason"
                rows={2}
                value={reason}
                disabled={busy}
                onChange={(e) => setReason(e.target.value)}
              />
              <div className="actions">
                <button type="submit" className="danger" data-testid="reject-confirm" disabled={busy}>
                  Confirm reject
                </button>
                <button type="button" disabled={busy} onClick={() => setMode("idle")}>
                  Back
                </button>
              </div>
            </form>
          )}
          {live && mode === "edit" && (
            <Suspense fallback={<p className="muted small">Loading the form…</p>}>
              <EditForm
                schema={tool?.input_schema ?? { type: "object" }}
                initial={args}
                fieldErrors={fieldErrors}
                disabled={busy}
                idPrefix={`edit_${call.id}`}
                onSubmit={submitEdit}
                onCancel={() => {
                  setMode("idle");
                  setFieldErrors([]);
                  setError(null);
                }}
              />
            </Suspense>
          )}
          {error && fieldErrors.length === 0 && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
        </>
      )}
    </section>
  );
}
