/**
 * The message box: Enter sends, Shift+Enter is a newline; disabled while a run is going.
 * Typing `/` at the start opens the employee's slash commands; a picked command is sent
 * with its claim (`command: {skill, command}`) while the text still starts with it.
 */
import { useId, useMemo, useState, type KeyboardEvent } from "react";
import { asApiError, type ApiError } from "../api/client";
import type { CommandClaim, SlashCommandOut } from "../api/types";
import { candidatesFrom, claimFor, completion, filterCommands, moveActive, typedCommand } from "./slash";
import { SlashMenu, slashOptionId } from "./SlashMenu";

interface Props {
  disabled: boolean;
  running: boolean;
  /** Slash commands available to the conversation's employee. */
  commands: SlashCommandOut[];
  onSend: (content: string, command?: CommandClaim) => Promise<void>;
  onCancel: () => void;
}

export function Composer({ disabled, running, commands, onSend, onCancel }: Props) {
  const [text, setText] = useState("");
  const [picked, setPicked] = useState<SlashCommandOut | null>(null);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState(false);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const inputId = useId();
  const menuId = useId();
  const blocked = disabled || sending;

  const typed = typedCommand(text);
  const matches = useMemo(() => (typed == null ? [] : filterCommands(commands, typed)), [commands, typed]);
  const menuOpen = !blocked && !dismissed && matches.length > 0;
  const activeIndex = Math.min(active, Math.max(matches.length - 1, 0));

  const change = (value: string) => {
    setText(value);
    setDismissed(false);
    setActive(0);
  };

  const pick = (command: SlashCommandOut) => {
    setText(completion(command));
    setPicked(command);
    setDismissed(true);
  };

  // Validation (empty, too long, unknown command) is the server's: its 422 message is shown as is.
  const send = async (claim = claimFor(text, picked)) => {
    if (blocked) return;
    setSending(true);
    setError(null);
    try {
      await onSend(text, claim);
      setText("");
      setPicked(null);
    } catch (e) {
      setError(asApiError(e));
    } finally {
      setSending(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.nativeEvent.isComposing) return;
    if (menuOpen) {
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        setActive(moveActive(activeIndex, e.key === "ArrowDown" ? 1 : -1, matches.length));
        return;
      }
      if ((e.key === "Enter" || e.key === "Tab") && !e.shiftKey) {
        e.preventDefault();
        pick(matches[activeIndex]);
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        setDismissed(true);
        return;
      }
    }
    if (e.key === "Enter" && !e.shiftKey) {
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
      <div className="composer-input">
        {menuOpen && <SlashMenu id={menuId} commands={matches} active={activeIndex} onPick={pick} onHover={setActive} />}
        <label htmlFor={inputId} className="visually-hidden">
          Message
        </label>
        <textarea
          id={inputId}
          data-testid="composer-input"
          rows={3}
          placeholder={running ? "Working…" : "Write a message (Enter to send, Shift+Enter for a new line, / for commands)"}
          value={text}
          disabled={blocked}
          aria-autocomplete={commands.length > 0 ? "list" : undefined}
          aria-controls={menuOpen ? menuId : undefined}
          aria-activedescendant={menuOpen ? slashOptionId(menuId, activeIndex) : undefined}
          onChange={(e) => change(e.target.value)}
          onKeyDown={onKeyDown}
          onBlur={() => setDismissed(true)}
          onFocus={() => setDismissed(false)}
        />
      </div>
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
      {error && <ComposerError error={error} disabled={blocked} onPick={(claim) => void send(claim)} />}
    </form>
  );
}

/** The server's answer to a message it refused; an ambiguous command offers its candidates. */
function ComposerError({ error, disabled, onPick }: { error: ApiError; disabled: boolean; onPick: (claim: CommandClaim) => void }) {
  const candidates = error.code === "slash_command_ambiguous" ? candidatesFrom(error.details) : [];
  return (
    <div className="error composer-error" role="alert" data-testid="composer-error" data-code={error.code}>
      <p>{error.message}</p>
      {candidates.length > 0 && (
        <div className="actions" role="group" aria-label="Which command?">
          {candidates.map((c) => (
            <button
              key={`${c.skill}/${c.command}`}
              type="button"
              data-testid="slash-candidate"
              data-skill={c.skill}
              data-command={c.command}
              disabled={disabled}
              onClick={() => onPick({ skill: c.skill, command: c.command })}
            >
              /{c.command} · {c.title || c.skill} <span className="muted small">({c.skill})</span>
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
