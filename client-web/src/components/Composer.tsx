/** The message box: Enter sends, Shift+Enter is a newline; disabled while a run is going. */
import { useId, useState, type KeyboardEvent } from "react";
import { ApiError } from "../api/client";

interface Props {
  disabled: boolean;
  running: boolean;
  onSend: (content: string) => Promise<void>;
  onCancel: () => void;
}

export function Composer({ disabled, running, onSend, onCancel }: Props) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const inputId = useId();
  const blocked = disabled || sending;

  // Validation (empty, too long) is the server's: its 422 message is shown as is.
  const send = async () => {
    if (blocked) return;
    setSending(true);
    setError(null);
    try {
      await onSend(text);
      setText("");
    } catch (e) {
      setError(e instanceof ApiError ? e.message : String(e));
    } finally {
      setSending(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      if (text !== "") void send();
    }
  };

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <label htmlFor={inputId} className="visually-hidden">
        Message
      </label>
      <textarea
        id={inputId}
        data-testid="composer-input"
        rows={3}
        placeholder={running ? "Working…" : "Write a message (Enter to send, Shift+Enter for a new line)"}
        value={text}
        disabled={blocked}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer-actions">
        {running && (
          <button type="button" data-testid="cancel-run" onClick={onCancel}>
            Stop
          </button>
        )}
        <button type="submit" className="primary" data-testid="send" disabled={blocked}>
          Send
        </button>
      </div>
      {error && (
        <p className="error composer-error" role="alert" data-testid="composer-error">
          {error}
        </p>
      )}
    </form>
  );
}
