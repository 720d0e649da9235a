/**
 * Undo / Redo of a succeeded write call's changes (one undo step per call). The server
 * re-checks everything: a later call that changed the same data makes it answer 409 with
 * what and who, which is shown here as is.
 */
import { useState } from "react";
import { api, asApiError } from "../../api/client";
import type { ToolCallOut } from "../../api/types";

interface Props {
  call: ToolCallOut;
  /** Called with the call as the server now reports it. */
  onUpdated: (call: ToolCallOut) => void;
}

export function UndoButton({ call, onUpdated }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const undo = call.undo;
  if (!undo || call.status !== "succeeded") return null;

  const act = async (which: "undo" | "redo") => {
    setBusy(true);
    setError(null);
    try {
      onUpdated(await (which === "undo" ? api.undo(call.id) : api.redo(call.id)));
    } catch (e) {
      setError(asApiError(e).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="undo-row" data-testid="undo-row" data-undo-state={undo.state}>
      {undo.state === "available" && (
        <button type="button" className="small" data-testid="undo" disabled={busy} onClick={() => void act("undo")}>
          {busy ? <span className="spinner" aria-hidden="true" /> : null}
          Undo
        </button>
      )}
      {undo.state === "undone" && (
        <>
          <span className="undone-note" role="status">
            Undone: the changes were put back.
          </span>
          <button type="button" className="small" data-testid="redo" disabled={busy} onClick={() => void act("redo")}>
            {busy ? <span className="spinner" aria-hidden="true" /> : null}
            Redo
          </button>
        </>
      )}
      {undo.state === "unavailable" && undo.reason && <span className="muted small">{undo.reason}</span>}
      {error && (
        <p className="undo-error" role="alert" data-testid="undo-error">
          {error}
        </p>
      )}
    </div>
  );
}
