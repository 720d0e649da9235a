/**
 * Card hint `markdown`: an approval whose arguments (and, once run, result) are long text.
 * They open in a modal dialog rendered as safe markdown (no raw HTML, only http(s)/mailto
 * links), with Approve / Reject inside.
 */
import { useId, useState } from "react";
import { JsonView } from "../../components/JsonView";
import { Markdown } from "../../components/Markdown";
import { Modal } from "../../components/Modal";
import { DecisionSummary } from "../DecisionSummary";
import { ToolCardHeader } from "../ToolCardHeader";
import type { CardProps } from "../types";
import { argSections } from "./markdownContent";

export function MarkdownCard({ call, tool, title, live, busy, decide }: CardProps) {
  const [open, setOpen] = useState(false);
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const reasonId = useId();
  const sections = argSections(call.executed_args ?? call.proposed_args);

  const run = async (body: Parameters<typeof decide>[0]) => {
    setError(null);
    const err = await decide(body);
    if (!err || err.status === 409) {
      setOpen(false);
      setRejecting(false);
      return;
    }
    setError(err.message);
  };

  return (
    <section className="card markdown-card" aria-label={`Approval: ${title}`}>
      <ToolCardHeader title={title} tool={tool} />
      {call.decision ? (
        <DecisionSummary call={call} showArgs={false} />
      ) : (
        !live && <p className="muted small">Not waiting for a decision ({call.status}).</p>
      )}
      <div className="actions">
        <button type="button" className={live ? "primary" : undefined} data-testid="markdown-open" onClick={() => setOpen(true)}>
          {live ? "Review" : "View"}
        </button>
      </div>
      {open && (
        <Modal title={title} testId="markdown-modal" onClose={() => setOpen(false)}>
          {sections.map((s) => (
            <section key={s.key} className="modal-section">
              <h3>{s.key}</h3>
              {"markdown" in s ? <Markdown text={s.markdown} /> : <JsonView value={s.json} />}
            </section>
          ))}
          {call.result_text && (
            <section className="modal-section" data-testid="markdown-result">
              <h3>Result</h3>
              <Markdown text={call.result_text} />
            </section>
          )}
          {live && !rejecting && (
            <div className="actions">
              <button type="button" className="primary" data-testid="approve" disabled={busy} onClick={() => void run({ type: "approve" })}>
                Approve
              </button>
              <button type="button" className="danger" data-testid="reject" disabled={busy} onClick={() => setRejecting(true)}>
                Reject
              </button>
            </div>
          )}
          {live && rejecting && (
            <form
              className="reject-form"
              onSubmit={(e) => {
                e.preventDefault();
                void run(reason.trim() ? { type: "reject", message: reason.trim() } : { type: "reject" });
              }}
            >
              <label htmlFor={reasonId}>Reason (optional)</label>
              <textarea id={reasonId} data-testid="reject-reason" rows={2} value={reason} disabled={busy} onChange={(e) => setReason(e.target.value)} />
              <div className="actions">
                <button type="submit" className="danger" data-testid="reject-confirm" disabled={busy}>
                  Confirm reject
                </button>
                <button type="button" disabled={busy} onClick={() => setRejecting(false)}>
                  Back
                </button>
              </div>
            </form>
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
