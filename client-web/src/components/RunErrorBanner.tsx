import type { RunError } from "../state/reducer";

/**
 * The banner for a run that failed: the server's sentence for the person, and Dismiss. The
 * stable error code stays out of the text (it is in `data-code` for support and tests).
 */
export function RunErrorBanner({ runError, onDismiss }: { runError: RunError | null; onDismiss: () => void }) {
  if (!runError) return null;
  return (
    <div className="run-error" role="alert" data-testid="run-error" data-code={runError.error.code}>
      <span>{runError.error.message}</span>
      <button type="button" className="link" onClick={onDismiss}>
        Dismiss
      </button>
    </div>
  );
}
