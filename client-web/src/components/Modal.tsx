/**
 * The one modal dialog, on the native <dialog> (showModal: the page behind is inert).
 *
 * - Focus lands on the Cancel button (the first footer button), never on an action.
 * - Esc, a click on the backdrop, the ✕ and Cancel close it without deciding (`onClose`).
 * - Tab and Shift+Tab stay inside; on close, focus returns to what had it before.
 * - While `busy` (a decision in flight) it cannot close: those controls do nothing and the
 *   caller's action button shows progress.
 * Render it while open; the caller unmounts it in `onClose`.
 */
import { useEffect, useId, useRef, type ReactNode } from "react";

interface Props {
  title: ReactNode;
  onClose: () => void;
  /** A decision is in flight: the modal cannot close. */
  busy?: boolean;
  /** The label of the closing button in the footer ("Cancel", "Close"). */
  cancelLabel?: string;
  /** Buttons after Cancel in the footer (e.g. Reject, Approve). */
  actions?: ReactNode;
  testId?: string;
  wide?: boolean;
  children: ReactNode;
}

const FOCUSABLE = 'button:not([disabled]), [href], input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function Modal({ title, onClose, busy = false, cancelLabel = "Cancel", actions, testId, wide = false, children }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const busyRef = useRef(busy);
  busyRef.current = busy;
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    cancelRef.current?.focus();
    return () => {
      if (dialog?.open) dialog.close();
      if (opener && opener.isConnected) opener.focus();
    };
  }, []);

  const requestClose = () => {
    if (!busyRef.current) closeRef.current();
  };

  const onKeyDown = (e: React.KeyboardEvent<HTMLDialogElement>) => {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      requestClose();
      return;
    }
    if (e.key !== "Tab" || !ref.current) return;
    const items = Array.from(ref.current.querySelectorAll<HTMLElement>(FOCUSABLE)).filter((el) => el.offsetParent !== null || el === document.activeElement);
    if (items.length === 0) return;
    const first = items[0];
    const last = items[items.length - 1];
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };

  return (
    <dialog
      ref={ref}
      className={wide ? "modal wide" : "modal"}
      aria-labelledby={titleId}
      aria-busy={busy || undefined}
      data-testid={testId}
      onKeyDown={onKeyDown}
      // The native Esc handling (a `cancel` event) is replaced by onKeyDown; keep it from closing.
      onCancel={(e) => {
        e.preventDefault();
        requestClose();
      }}
      onClick={(e) => {
        if (e.target === e.currentTarget) requestClose(); // the backdrop
      }}
    >
      <div className="modal-frame">
        <header className="modal-head">
          <h2 id={titleId}>{title}</h2>
          <button type="button" className="icon" aria-label="Close" data-testid="modal-close" disabled={busy} onClick={requestClose}>
            ✕
          </button>
        </header>
        {/* Focusable, so its scrolled content can be read with the keyboard alone. */}
        <div className="modal-body" tabIndex={0} role="region" aria-labelledby={titleId}>
          {children}
        </div>
        <footer className="modal-foot actions">
          <button type="button" ref={cancelRef} data-testid="modal-cancel" disabled={busy} onClick={requestClose}>
            {cancelLabel}
          </button>
          {actions}
        </footer>
      </div>
    </dialog>
  );
}
