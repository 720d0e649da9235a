/**
 * A modal dialog on the native <dialog> (showModal: focus moves in, the page behind is
 * inert, Escape closes). Render it while open; closing calls `onClose`.
 */
import { useEffect, useId, useRef, type ReactNode } from "react";

interface Props {
  title: ReactNode;
  onClose: () => void;
  testId?: string;
  children: ReactNode;
}

export function Modal({ title, onClose, testId, children }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);

  return (
    <dialog ref={ref} className="modal" aria-labelledby={titleId} data-testid={testId} onClose={onClose}>
      <header className="modal-head">
        <h2 id={titleId}>{title}</h2>
        <button type="button" className="icon" aria-label="Close" onClick={() => ref.current?.close()}>
          ✕
        </button>
      </header>
      <div className="modal-body">{children}</div>
    </dialog>
  );
}
