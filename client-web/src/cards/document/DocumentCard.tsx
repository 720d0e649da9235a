/**
 * `documents.write` (and any tool that asks for a modal review of a Markdown document,
 * args {title, markdown}): a one-line summary and "Review", which opens a modal with the
 * rendered Markdown (safe: no HTML, only http(s)/mailto links), the editable source and a
 * line diff against the stored document (`confirmation.previous`). Approve, Save edits and
 * approve, or Reject with a reason, from inside the modal.
 */
import { useId, useRef, useState } from "react";
import type { DecisionIn } from "../../api/types";
import { Markdown } from "../../components/Markdown";
import { Modal } from "../../components/Modal";
import { actionName } from "../actionName";
import { DecisionSummary } from "../DecisionSummary";
import { ReasonField } from "../ReasonField";
import { TextDiff } from "../diff/ArgsDiff";
import { ToolCardHeader } from "../ToolCardHeader";
import type { CardProps } from "../types";

export interface DocumentArgs {
  title: string;
  markdown: string;
}

export function documentArgs(args: Record<string, unknown> | null | undefined): DocumentArgs {
  return {
    title: typeof args?.title === "string" ? args.title : "",
    markdown: typeof args?.markdown === "string" ? args.markdown : "",
  };
}

/** The decision the modal posts: approve when the source is unchanged, else edit with it. */
export function documentDecision(proposed: Record<string, unknown> | null, draft: string): DecisionIn {
  const original = documentArgs(proposed).markdown;
  return draft === original ? { type: "approve" } : { type: "edit", args: { ...(proposed ?? {}), markdown: draft } };
}

/** Edits of the source the person made and has not saved: kept by the card while the modal is closed. */
export interface Draft {
  text: string | null;
  set: (text: string | null) => void;
}

/** True when `draft` differs from the proposed text (the person has edits not saved yet). */
export function hasUnsavedEdits(proposed: Record<string, unknown> | null, draft: string | null): boolean {
  return draft !== null && draft !== documentArgs(proposed).markdown;
}

/** Python's `str.splitlines` breaks: the server counts a document's lines with it. */
const LINE_BREAK = /\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]/;

/**
 * "5 lines · 42 characters", counted as the server counts them in the card's sentence
 * ("Create the document “Plan” (5 lines)."): a final line break ends the last line rather than
 * starting another, an empty document is 1 line, and characters are code points (an emoji is
 * one, not two UTF-16 units).
 */
export function documentSize(markdown: string): string {
  const parts = markdown.split(LINE_BREAK);
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  const lines = Math.max(parts.length, 1);
  const chars = [...markdown].length;
  const plural = (n: number, word: string) => `${n.toLocaleString()} ${word}${n === 1 ? "" : "s"}`;
  return `${plural(lines, "line")} · ${plural(chars, "character")}`;
}

export function DocumentCard({ call, tool, title, live, busy, decide }: CardProps) {
  const [open, setOpen] = useState(false);
  // Lives here, not in the modal: Escape, ✕, Cancel or a stray tap outside closes the modal
  // without losing what the person typed.
  const [draft, setDraft] = useState<string | null>(null);
  const unsaved = live && hasUnsavedEdits(call.proposed_args, draft);
  const doc = documentArgs(call.executed_args ?? call.proposed_args);
  const summary = call.confirmation?.summary ?? (doc.title ? `Save the document “${doc.title}”` : title);
  return (
    <section className="card document-card" aria-label={`Document: ${summary}`}>
      <ToolCardHeader title={title} tool={tool} call={call} summary={summary} />
      <p className="muted small">
        {documentSize(doc.markdown)}
        {call.confirmation && call.confirmation.previous == null && " · a new document"}
      </p>
      {call.decision && <DecisionSummary call={call} schema={tool?.input_schema} />}
      {unsaved && (
        <p className="muted small" data-testid="document-edits-kept">
          Your edits are kept but not saved yet: open Review to save them or undo them.
        </p>
      )}
      <div className="actions">
        <button type="button" className={live ? "primary" : undefined} data-testid="document-review" aria-label={actionName(live ? "Review" : "View", summary)} onClick={() => setOpen(true)}>
          {live ? "Review" : "View"}
        </button>
      </div>
      {open && (
        <DocumentModal call={call} tool={tool} title={title} live={live} busy={busy} decide={decide} draft={{ text: draft, set: setDraft }} onClose={() => setOpen(false)} />
      )}
    </section>
  );
}

type Tab = "preview" | "source" | "changes";

function DocumentModal({ call, tool, live, busy, decide, draft: kept, onClose }: CardProps & { draft: Draft; onClose: () => void }) {
  const proposed = documentArgs(call.proposed_args);
  const shown = documentArgs(call.executed_args ?? call.proposed_args);
  const draft = (live ? kept.text : null) ?? shown.markdown;
  const setDraft = kept.set;
  const [tab, setTab] = useState<Tab>("preview");
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [sent, setSent] = useState<"approve" | "reject" | null>(null);
  const tabsId = useId();
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const previous = call.confirmation?.previous ?? null;
  const edited = live && draft !== proposed.markdown;
  const actionLabel = call.confirmation?.action_label || "Approve";

  const run = async (body: DecisionIn, kind: "approve" | "reject") => {
    setError(null);
    setSent(kind);
    const err = await decide(body);
    setSent(null);
    if (!err || err.status === 409) {
      onClose();
      return;
    }
    setError(err.message);
  };

  const rejectNow = () => void run(reason.trim() ? { type: "reject", message: reason.trim() } : { type: "reject" }, "reject");

  const tabs: Array<[Tab, string]> = [
    ["preview", "Preview"],
    ["source", live ? "Edit source" : "Source"],
    ["changes", "Changes"],
  ];

  const actions = live ? (
    rejecting ? (
      <>
        <button type="button" disabled={busy} onClick={() => setRejecting(false)}>
          Back
        </button>
        <button
          type="button"
          className="danger"
          data-testid="document-reject-confirm"
          disabled={busy}
          onClick={rejectNow}
        >
          {sent === "reject" && <span className="spinner" aria-hidden="true" />}
          {sent === "reject" ? "Rejecting…" : "Confirm reject"}
        </button>
      </>
    ) : (
      <>
        <button
          type="button"
          className="danger"
          data-testid="document-reject"
          disabled={busy}
          onClick={() => {
            setRejecting(true);
            queueMicrotask(() => reasonRef.current?.focus());
          }}
        >
          Reject
        </button>
        <button type="button" className="primary" data-testid="document-approve" disabled={busy} onClick={() => void run(documentDecision(call.proposed_args, draft), "approve")}>
          {sent === "approve" && <span className="spinner" aria-hidden="true" />}
          {sent === "approve" ? "Saving…" : edited ? "Save edits and approve" : actionLabel}
        </button>
      </>
    )
  ) : null;

  return (
    <Modal title={shown.title ? `Document: ${shown.title}` : "Document"} testId="document-modal" busy={busy} cancelLabel={live ? "Cancel" : "Close"} actions={actions} wide onClose={onClose}>
      {call.confirmation?.summary && <p className="modal-summary">{call.confirmation.summary}</p>}
      <div className="tabs" role="tablist" aria-label="Document views">
        {tabs.map(([key, label]) => (
          <button
            key={key}
            type="button"
            role="tab"
            id={`${tabsId}-${key}`}
            aria-selected={tab === key}
            aria-controls={`${tabsId}-panel`}
            data-testid={`document-tab-${key}`}
            className={tab === key ? "tab active" : "tab"}
            onClick={() => setTab(key)}
          >
            {label}
            {key === "source" && edited ? " •" : ""}
          </button>
        ))}
      </div>
      <div className="tab-panel" role="tabpanel" id={`${tabsId}-panel`} aria-labelledby={`${tabsId}-${tab}`} data-testid={`document-panel-${tab}`}>
        {tab === "preview" && <Markdown text={draft} />}
        {tab === "source" && (
          <textarea
            className="document-source"
            data-testid="document-source"
            aria-label="Markdown source"
            value={draft}
            readOnly={!live}
            disabled={busy}
            rows={18}
            onChange={(e) => setDraft(e.target.value)}
          />
        )}
        {tab === "source" && edited && (
          <button type="button" className="link small" data-testid="document-undo-edits" disabled={busy} onClick={() => setDraft(null)}>
            Undo my edits
          </button>
        )}
        {tab === "changes" &&
          (previous == null ? (
            <p className="muted" data-testid="document-new">
              A new document: nothing stored is replaced.
            </p>
          ) : (
            <TextDiff before={previous} after={draft} />
          ))}
      </div>
      {live && rejecting && (
        <div className="reject-form">
          <ReasonField value={reason} onChange={setReason} onSubmit={rejectNow} disabled={busy} testId="document-reject-reason" inputRef={reasonRef} />
        </div>
      )}
      {call.decision && <DecisionSummary call={call} schema={tool?.input_schema} />}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </Modal>
  );
}
