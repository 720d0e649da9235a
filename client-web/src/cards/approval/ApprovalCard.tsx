/**
 * The generic card: the confirmation's summary (or the arguments as labelled fields), the
 * action ("Approve" or the tool's action_label), edit (a form from the tool's input_schema)
 * or reject with a reason (no edit for a call several people approve). Destructive tools get a danger-styled action placed last, and the
 * focus goes to Reject, never to the destructive action.
 */
import { lazy, Suspense, useEffect, useId, useRef, useState } from "react";
import type { ApiError } from "../../api/client";
import type { FieldError, JsonObject } from "../../api/types";
import { ViewJson } from "../../components/JsonView";
import { Markdown } from "../../components/Markdown";
import { actionName } from "../actionName";
import { DecisionSummary } from "../DecisionSummary";
import { ReasonField } from "../ReasonField";
import { ArgFields, LongText } from "../fields/ArgFields";
import { isDestructive, ToolCardHeader } from "../ToolCardHeader";
import type { CardProps } from "../types";
import { NO_REMEMBER, rememberBody, rememberSummary, type RememberChoiceValue } from "../../permissions/describe";
import { fieldErrorsFrom } from "./fieldErrors";
import { RememberChoice } from "./RememberChoice";
import "../../permissions/permissions.css";
import { reveal } from "../reveal";

// rjsf + Ajv are most of the bundle: load them when a form is first opened.
const EditForm = lazy(() => import("./EditForm").then((m) => ({ default: m.EditForm })));

type Mode = "idle" | "reject" | "edit";

/** "Don't ask again" is the owner's choice for an ASK call no one else has to approve. */
function canRemember(call: CardProps["call"]): boolean {
  return call.permission === "ASK" && !call.require_approver && (call.approvals_required ?? 1) <= 1;
}

/**
 * A call several people approve runs with the arguments each of them approved, so it is not
 * edited (the server refuses it with `edit_needs_one_approval`; ApprovalProgress says why).
 */
function canEdit(call: CardProps["call"]): boolean {
  return (call.approvals_required ?? 1) <= 1;
}

/** Whether the person is typing somewhere (then a new card does not take the focus). */
function typing(): boolean {
  const el = document.activeElement;
  return (el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement) && el.value.length > 0;
}

export function ApprovalCard({ call, tool, title, live, busy, decide, canApprove = true }: CardProps) {
  const [mode, setMode] = useState<Mode>("idle");
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [fieldErrors, setFieldErrors] = useState<FieldError[]>([]);
  const [details, setDetails] = useState(false);
  const [remember, setRemember] = useState<RememberChoiceValue>(NO_REMEMBER);
  const remembered = rememberBody(remember);
  const [rememberSent, setRememberSent] = useState(false);
  const rejectRef = useRef<HTMLButtonElement>(null);
  const editRef = useRef<HTMLButtonElement>(null);
  /** The button to focus again once the form it opened is closed without deciding. */
  const returnTo = useRef<"edit" | "reject" | null>(null);
  const detailId = useId();
  const args = call.proposed_args ?? {};
  const schema = tool?.input_schema;
  const confirmation = call.confirmation ?? null;
  const destructive = isDestructive(call, tool);
  const actionLabel = confirmation?.action_label || "Approve";
  /** What the card's buttons act on, in their accessible names. */
  const subject = confirmation?.summary ?? title;

  useEffect(() => {
    if (live && destructive && !typing()) rejectRef.current?.focus();
  }, [live, destructive]);

  useEffect(() => {
    if (mode !== "idle" || !returnTo.current) return;
    (returnTo.current === "edit" ? editRef : rejectRef).current?.focus();
    returnTo.current = null;
  }, [mode]);

  /** Closes the reject or edit form without deciding; the focus goes back to its button. */
  const back = (from: "edit" | "reject") => {
    returnTo.current = from;
    setMode("idle");
  };

  const rejectNow = () => void run(reason.trim() ? { type: "reject", message: reason.trim() } : { type: "reject" });

  const run = async (body: Parameters<typeof decide>[0]) => {
    setError(null);
    const err: ApiError | null = await decide(body);
    if (!err) {
      setMode("idle");
      setFieldErrors([]);
      if ((body.type === "approve" || body.type === "edit") && body.remember) setRememberSent(true);
      return;
    }
    if (err.status === 409) return; // the host refreshes and shows the recorded decision
    setFieldErrors(fieldErrorsFrom(err.details));
    setError(err.message);
  };

  const submitEdit = (edited: JsonObject) =>
    run(remembered ? { type: "edit", args: edited, remember: remembered } : { type: "edit", args: edited });

  const action = (
    <button
      type="button"
      className={destructive ? "danger solid" : "primary"}
      data-testid="approve"
      disabled={busy}
      aria-label={actionName(actionLabel, subject)}
      onClick={() => run(remembered ? { type: "approve", remember: remembered } : { type: "approve" })}
    >
      {busy ? <span className="spinner" aria-hidden="true" /> : null}
      {reveal(actionLabel)}
    </button>
  );
  const editButton = canEdit(call) && (
    <button type="button" ref={editRef} data-testid="edit" disabled={busy} aria-label={actionName("Edit", subject)} onClick={() => setMode("edit")}>
      Edit
    </button>
  );
  const rejectButton = (
    <button type="button" ref={rejectRef} className={destructive ? undefined : "danger"} data-testid="reject" disabled={busy} aria-label={actionName("Reject", subject)} onClick={() => setMode("reject")}>
      Reject
    </button>
  );

  return (
    <section className={destructive ? "card approval-card destructive" : "card approval-card"} aria-label={`Approval: ${subject}`}>
      <ToolCardHeader title={title} tool={tool} call={call} />
      {mode !== "edit" && (
        <>
          {confirmation ? (
            <>
              <button type="button" className="link small" aria-expanded={details} aria-controls={details ? detailId : undefined} data-testid="card-details" onClick={() => setDetails(!details)}>
                {details ? "Hide details" : "Show details"}
              </button>
              {details && (
                <div id={detailId} className="card-detail" data-testid="card-detail">
                  {confirmation.detail &&
                    (call.modal ? <Markdown text={confirmation.detail} /> : <LongText text={confirmation.detail} />)}
                  <ArgFields schema={schema} args={args} />
                </div>
              )}
            </>
          ) : (
            <>
              {call.decision?.type === "edit" && <p className="muted small fields-caption">As proposed</p>}
              <ArgFields schema={schema} args={args} />
            </>
          )}
          <ViewJson value={args} />
        </>
      )}
      {call.decision ? (
        <>
          <DecisionSummary call={call} schema={schema} />
          {rememberSent && (
            <p className="muted small" data-testid="remember-done">
              {rememberSummary(remember, title).replace(" will run", " will now run")}
            </p>
          )}
        </>
      ) : (
        <>
          {live && mode !== "reject" && canRemember(call) && canApprove && (
            <RememberChoice value={remember} onChange={setRemember} toolTitle={title} disabled={busy} />
          )}
          {live && mode === "idle" && (
            <div className="actions">
              {!canApprove ? (
                rejectButton
              ) : destructive ? (
                <>
                  {rejectButton}
                  {editButton}
                  {action}
                </>
              ) : (
                <>
                  {action}
                  {editButton}
                  {rejectButton}
                </>
              )}
            </div>
          )}
          {live && mode === "reject" && (
            <form
              className="reject-form"
              onSubmit={(e) => {
                e.preventDefault();
                rejectNow();
              }}
            >
              <ReasonField
                value={reason}
                onChange={setReason}
                onSubmit={rejectNow}
                onEscape={() => back("reject")}
                disabled={busy}
                testId="reject-reason"
                autoFocus
              />
              <div className="actions">
                <button type="submit" className="danger" data-testid="reject-confirm" disabled={busy} aria-label={actionName("Confirm reject", subject)}>
                  Confirm reject
                </button>
                <button type="button" disabled={busy} onClick={() => back("reject")}>
                  Back
                </button>
              </div>
            </form>
          )}
          {live && mode === "edit" && (
            <Suspense fallback={<p className="muted small">Loading the form…</p>}>
              <EditForm
                schema={schema ?? { type: "object" }}
                initial={args}
                fieldErrors={fieldErrors}
                disabled={busy}
                idPrefix={`edit_${call.id}`}
                subject={subject}
                onSubmit={submitEdit}
                onCancel={() => {
                  back("edit");
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
