/**
 * Long content (a tool result or a message over FOLD_CHARS) shows a short preview and
 * "Show all", which opens the modal with the whole text, Copy and Download. A cut tool
 * result (the model saw only its start) fetches the whole output from the server first.
 * Sizes count characters (code points, as the server's `result_chars`); plain text shows its
 * hidden characters as `[U+202E]` (see cards/reveal), while Copy and Download give it as it is.
 */
import { useEffect, useState, type ReactNode } from "react";
import { api, asApiError } from "../api/client";
import { charCount, reveal, sliceChars } from "../cards/reveal";
import { Modal } from "./Modal";

/** Content over this many characters (~20 kB) folds. */
export const FOLD_CHARS = 20_000;
/** How much of it the preview shows. */
export const PREVIEW_CHARS = 1_500;

export function needsFold(text: string): boolean {
  return text.length > FOLD_CHARS && charCount(text) > FOLD_CHARS;
}

export function previewOf(text: string, limit = PREVIEW_CHARS): string {
  const preview = sliceChars(text, limit);
  return preview.length < text.length ? `${preview}…` : text;
}

interface Props {
  text: string;
  /** Modal title ("Tool result: List notes", "Message from Ada"). */
  title: string;
  /** The file name Download gives ("result.txt"). */
  fileName: string;
  /** A cut tool result: fetch the whole text from GET /api/tool-calls/{id}/output. */
  cut?: { callId: string; chars: number | null } | null;
  /** How the preview renders (default: plain text). */
  renderPreview?: (preview: string) => ReactNode;
  testId?: string;
}

export function FoldedText({ text, title, fileName, cut, renderPreview, testId = "folded" }: Props) {
  const [open, setOpen] = useState(false);
  const size = cut?.chars ?? charCount(text);
  const preview = previewOf(text);
  return (
    <div className="folded" data-testid={testId}>
      {renderPreview ? renderPreview(preview) : <pre className="result-text">{reveal(preview)}</pre>}
      <button type="button" className="link" data-testid="show-all" onClick={() => setOpen(true)}>
        Show all ({size.toLocaleString()} characters)
      </button>
      {open && <FullTextModal text={text} title={title} fileName={fileName} cut={cut ?? null} onClose={() => setOpen(false)} />}
    </div>
  );
}

function FullTextModal({ text, title, fileName, cut, onClose }: { text: string; title: string; fileName: string; cut: Props["cut"]; onClose: () => void }) {
  const [full, setFull] = useState<string | null>(cut ? null : text);
  const [error, setError] = useState<string | null>(null);
  const [note, setNote] = useState<string | null>(null);

  useEffect(() => {
    if (!cut) return;
    let live = true;
    api.toolOutput(cut.callId).then(
      (whole) => live && setFull(whole),
      (e: unknown) => {
        if (!live) return;
        setError(`The whole output could not be loaded (${asApiError(e).message}); showing what the model saw.`);
        setFull(text);
      },
    );
    return () => {
      live = false;
    };
  }, [cut, text]);

  const copy = async () => {
    if (full == null) return;
    try {
      await navigator.clipboard.writeText(full);
      setNote("Copied to the clipboard.");
    } catch {
      setNote("This browser did not allow copying; use Download instead.");
    }
  };

  const download = () => {
    if (full == null) return;
    const url = URL.createObjectURL(new Blob([full], { type: "text/plain;charset=utf-8" }));
    const a = document.createElement("a");
    a.href = url;
    a.download = fileName;
    document.body.append(a);
    a.click();
    a.remove();
    window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };

  const actions = (
    <>
      <button type="button" data-testid="copy-text" disabled={full == null} onClick={() => void copy()}>
        Copy
      </button>
      <button type="button" data-testid="download-text" disabled={full == null} onClick={download}>
        Download
      </button>
    </>
  );

  return (
    <Modal title={title} testId="full-text-modal" cancelLabel="Close" actions={actions} wide onClose={onClose}>
      <p className="muted small" data-testid="full-size">
        {full == null
          ? "Loading the whole text…"
          : `${charCount(full).toLocaleString()} characters${cut ? ` (the model saw the first ${charCount(text).toLocaleString()})` : ""}`}
      </p>
      {error && <p className="error small">{error}</p>}
      {note && (
        <p className="muted small" role="status">
          {note}
        </p>
      )}
      {full != null && (
        <pre className="full-text" data-testid="full-text" tabIndex={0}>
          {reveal(full)}
        </pre>
      )}
    </Modal>
  );
}
