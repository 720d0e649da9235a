/**
 * The "Reason (optional)" box of a reject, shared by every card that rejects. Like the
 * composer, Enter sends (here: confirms the reject) and Shift+Enter starts a new line; the
 * hint under the box says so. Escape calls `onEscape` (a card goes back to its buttons; in a
 * modal the modal's own Escape closes it).
 */
import { useId, type KeyboardEvent, type Ref } from "react";

interface Props {
  value: string;
  onChange: (value: string) => void;
  /** Confirms the reject (Enter without Shift). */
  onSubmit: () => void;
  /** Goes back without rejecting (Escape); absent: Escape is left to the page (a modal closes). */
  onEscape?: () => void;
  disabled: boolean;
  testId: string;
  inputRef?: Ref<HTMLTextAreaElement>;
  autoFocus?: boolean;
}

export const REASON_HINT = "Enter rejects; Shift+Enter starts a new line.";

/**
 * What a key pressed in the reason box does: "submit" for Enter alone (not while an input
 * method is composing text), "escape" for Escape, else null (the key types as usual).
 */
export function reasonKey(e: Pick<KeyboardEvent, "key" | "shiftKey" | "altKey" | "ctrlKey" | "metaKey"> & { isComposing?: boolean }): "submit" | "escape" | null {
  if (e.key === "Escape") return "escape";
  if (e.key === "Enter" && !e.shiftKey && !e.altKey && !e.ctrlKey && !e.metaKey && !e.isComposing) return "submit";
  return null;
}

export function ReasonField({ value, onChange, onSubmit, onEscape, disabled, testId, inputRef, autoFocus }: Props) {
  const id = useId();
  return (
    <>
      <label htmlFor={id}>Reason (optional)</label>
      <textarea
        id={id}
        ref={inputRef}
        data-testid={testId}
        rows={2}
        value={value}
        disabled={disabled}
        autoFocus={autoFocus}
        aria-describedby={`${id}-hint`}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          const { key, shiftKey, altKey, ctrlKey, metaKey } = e;
          const action = reasonKey({ key, shiftKey, altKey, ctrlKey, metaKey, isComposing: e.nativeEvent.isComposing });
          if (action === "submit") {
            e.preventDefault();
            if (!disabled) onSubmit();
          } else if (action === "escape" && onEscape) {
            e.stopPropagation();
            onEscape();
          }
        }}
      />
      <p className="muted small reason-hint" id={`${id}-hint`}>
        {REASON_HINT}
      </p>
    </>
  );
}
