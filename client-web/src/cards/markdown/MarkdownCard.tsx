/**
 * Card hint `markdown`: an approval whose arguments (and, once run, result) are long text.
 * They open in the modal rendered as safe markdown (no raw HTML, only http(s)/mailto
 * links), with Approve / Reject inside.
 */
import { useRef, useState } from "react";
import type { DecisionIn } from "../../api/types";
import { JsonView } from "../../components/JsonView";
import { Markdown } from "../../components/Markdown";
import { Modal } from "../../components/Modal";
import { actionName } from "../actionName";
import { DecisionSummary } from "../DecisionSummary";
import { ReasonField } from "../ReasonField";
import { fieldLabel } from "../fields/schemaFields";
import { statusWords } from "../status/status";
import { ToolCardHeader } from "../ToolCardHeader";
import type { CardProps } from "../types";
import { argSections } from "./markdownContent";
import { reveal } from "../reveal";

export function MarkdownCard({ call, tool, title, live, busy, decide }: CardProps) {
  const [open, setOpen] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const sections = argSections(call.executed_args ?? call.proposed_args);
  const actionLabel = call.confirmation?.action_label || "Approve";

  const run = async (body: DecisionIn) => {
    setError(null);
    const err = await decide(body);
    if (!err || err.status === 409) {
      setOpen(false);
      setRejecting(false);
      return;
    }
    setError(err.message);
  };

  const rejectNow = () => void run(reason.trim() ? { type: "reject", message: reason.trim() } : { type: "reject" });

  const actions = !live ? null : rejecting ? (
    <>
      <button type="button" disabled={busy} onClick={() => setRejecting(false)}>
        Back
      </button>
      <button
        type="button"
        className="danger"
        data-testid="reject-confirm"
        disabled={busy}
        onClick={rejectNow}
      >
        {busy && <span className="spinner" aria-hidden="true" />}
        Confirm reject
      </button>
    </>
  ) : (
    <>
      <button
        type="button"
        className="danger"
        data-testid="reject"
        disabled={busy}
        onClick={() => {
          setRejecting(true);
          queueMicrotask(() => reasonRef.current?.focus());
        }}
      >
        Reject
      </button>
      <button type="button" className="primary" data-testid="approve" disabled={busy} onClick={() => void run({ type: "approve" })}>
        {busy && <span className="spinner" aria-hidden="true" />}
        {reveal(actionLabel)}
      </button>
    </>
  );

  return (
    <section className="card markdown-card" aria-label={`Approval: ${call.confirmation?.summary ?? title}`}>
      <ToolCardHeader title={title} tool={tool} call={call} />
      {call.decision ? (
        <DecisionSummary call={call} schema={tool?.input_schema} />
      ) : (
        !live && <p className="muted small">Not waiting for a decision ({statusWords(call).label.toLowerCase()}).</p>
      )}
      <div className="actions">
        <button type="button" className={live ? "primary" : undefined} data-testid="markdown-open" aria-label={actionName(live ? "Review" : "View", call.confirmation?.summary ?? title)} onClick={() => setOpen(true)}>
          {live ? "Review" : "View"}
        </button>
      </div>
      {open && (
        <Modal title={title} testId="markdown-modal" busy={busy} cancelLabel={live ? "Cancel" : "Close"} actions={actions} wide onClose={() => setOpen(false)}>
          {sections.map((s) => (
            <section key={s.key} className="modal-section">
              <h3>{fieldLabel(tool?.input_schema, s.key)}</h3>
              {"markdown" in s ? <Markdown text={s.markdown} /> : <JsonView value={s.json} />}
            </section>
          ))}
          {call.result_text && (
            <section className="modal-section" data-testid="markdown-result">
              <h3>Result</h3>
              <Markdown text={call.result_text} />
            </section>
          )}
          {live && rejecting && (
            <div className="reject-form">
              <ReasonField value={reason} onChange={setReason} onSubmit={rejectNow} disabled={busy} testId="reject-reason" inputRef={reasonRef} />
            </div>
          )}
          {call.decision && <DecisionSummary call={call} showArgs={false} />}
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
        </Modal>
      )}
    </section>
  );
}
