/**
 * Above the composer while the run is paused: "Ada is waiting for you" with the number of
 * decisions and a button (and Alt+J anywhere on the page) that jumps to the first one.
 */
export const JUMP_KEY_LABEL = "Alt+J";

export function WaitingBanner({ name, count, onJump }: { name: string; count: number; onJump: () => void }) {
  if (count === 0) return null;
  return (
    <div className="waiting-banner" data-testid="waiting-banner">
      <span>
        <strong>{name} is waiting for you</strong>
        <span className="muted"> · {count === 1 ? "1 decision" : `${count} decisions`}</span>
      </span>
      <button type="button" className="link" data-testid="jump-to-decision" aria-keyshortcuts="Alt+J" onClick={onJump}>
        Go to {count === 1 ? "the decision" : "the first decision"}
        {/* The shortcut means nothing on a touch screen without a keyboard: shown where there is a mouse. */}
        <span className="shortcut-hint"> ({JUMP_KEY_LABEL})</span>
      </button>
    </div>
  );
}

/**
 * Moves focus to the tool call's card: a control marked `data-initial-focus`, else its
 * primary action (Approve), else Reject (a destructive card's action is never focused
 * first), else its first enabled control, else the row itself.
 */
export function focusCall(callId: string): boolean {
  const row = document.querySelector<HTMLElement>(`[data-testid="tool-call"][data-tool-call-id="${CSS.escape(callId)}"]`);
  if (!row) return false;
  row.scrollIntoView({ block: "center" });
  const enabled = (selector: string) => row.querySelector<HTMLElement>(`.card-host ${selector}:not(:disabled)`);
  const target =
    enabled("[data-initial-focus]") ??
    enabled("button.primary") ??
    enabled('[data-testid="reject"]') ??
    enabled(".actions button:not(.danger)") ??
    enabled("button:not(.danger)");
  if (target) {
    target.focus();
  } else {
    if (!row.hasAttribute("tabindex")) row.setAttribute("tabindex", "-1");
    row.focus();
  }
  return true;
}
