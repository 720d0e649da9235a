/**
 * The message box: Enter sends, Shift+Enter is a newline; disabled while a run is going.
 * While decisions wait, it says so and that sending cancels them, and asks once before sending.
 * Typing `/` at the start opens the employee's slash commands; a picked command is sent
 * with its claim (`command: {skill, command}`) while the text still starts with it.
 * What the browser can check (see messageChecks) is checked before sending and before asking,
 * so the person is never asked to cancel decisions for a message that would be refused.
 */
import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { asApiError, type ApiError } from "../api/client";
import type { CommandClaim, SlashCommandOut } from "../api/types";
import { refusalBeforeSending, refusalWords } from "./messageChecks";
import { candidatesFrom, claimFor, completion, filterCommands, moveActive, typedCommand } from "./slash";
import { SlashMenu, slashOptionId } from "./SlashMenu";

interface Props {
  disabled: boolean;
  running: boolean;
  /** Slash commands available to the conversation's employee. */
  commands: SlashCommandOut[];
  /** `commands` was read from the server (else typed commands are left for it to check). */
  commandsKnown?: boolean;
  /** The employee's name, as a refused command names them ("Scout has no command /notes"). */
  employeeName?: string;
  /** Decisions waiting in this conversation (sending a message cancels them). */
  waiting?: number;
  /** The stream is open (a network error shown here clears when it comes back). */
  connected?: boolean;
  onSend: (content: string, command?: CommandClaim) => Promise<void>;
  onCancel: () => void;
}

export function Composer({ disabled, running, commands, commandsKnown = false, employeeName, waiting = 0, connected = true, onSend, onCancel }: Props) {
  const [text, setText] = useState("");
  const [picked, setPicked] = useState<SlashCommandOut | null>(null);
  const [active, setActive] = useState(0);
  const [dismissed, setDismissed] = useState(false);
  const [sending, setSending] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  /** The claim of a send waiting for "Send and cancel them" (null: not asking). */
  const [confirming, setConfirming] = useState<{ claim: CommandClaim | undefined } | null>(null);
  const inputId = useId();
  const warningId = useId();
  const confirmRef = useRef<HTMLButtonElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);

  // A network error from the outage is stale once the stream is back.
  useEffect(() => {
    if (connected) setError((e) => (e && e.status === 0 ? null : e));
  }, [connected]);
  // Nothing waits any more (decided elsewhere): no need to ask.
  useEffect(() => {
    if (waiting === 0) setConfirming(null);
  }, [waiting]);
  useEffect(() => {
    if (confirming) confirmRef.current?.focus();
  }, [confirming]);
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

  // What the browser can see is checked first, before asking to cancel anything; the rest
  // (size, the command's input, permissions) is the server's, worded by refusalWords.
  const send = async (claim = claimFor(text, picked), confirmed = false) => {
    if (blocked) return;
    const refused = refusalBeforeSending(text, claim, commands, commandsKnown, employeeName);
    if (refused) {
      setConfirming(null);
      setError(refused);
      inputRef.current?.focus();
      return;
    }
    if (waiting > 0 && !confirmed) {
      setError(null);
      setConfirming({ claim });
      return;
    }
    setConfirming(null);
    setSending(true);
    setError(null);
    try {
      await onSend(text, claim);
      setText("");
      setPicked(null);
    } catch (e) {
      inputRef.current?.focus();
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
    if (e.key === "Escape" && confirming) {
      e.preventDefault();
      setConfirming(null);
      return;
    }
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      if (text !== "") void send();
    }
  };

  const keepWaiting = () => {
    setConfirming(null);
    inputRef.current?.focus();
  };
  const decisions = waiting === 1 ? "1 decision is" : `${waiting} decisions are`;

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
          ref={inputRef}
          id={inputId}
          aria-describedby={waiting > 0 ? warningId : undefined}
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
      {waiting > 0 && (
        <p id={warningId} className="composer-warning" data-testid="composer-warning">
          {decisions} waiting for you. Sending a message cancels {waiting === 1 ? "it" : "them"}.
        </p>
      )}
      {confirming && (
        <div
          className="composer-confirm"
          role="alertdialog"
          aria-label="Send and cancel the waiting decisions?"
          data-testid="composer-confirm"
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.preventDefault();
              keepWaiting();
            }
          }}
        >
          <p>
            Send this message and cancel the {waiting === 1 ? "waiting call" : `${waiting} waiting calls`}?
          </p>
          <div className="actions">
            <button
              ref={confirmRef}
              type="button"
              className="primary"
              data-testid="composer-confirm-send"
              disabled={blocked}
              onClick={() => void send(confirming.claim, true)}
            >
              Send and cancel {waiting === 1 ? "it" : "them"}
            </button>
            <button type="button" data-testid="composer-confirm-keep" onClick={keepWaiting}>
              Keep waiting
            </button>
          </div>
        </div>
      )}
      {error && <ComposerError error={error} waiting={waiting} disabled={blocked} onPick={(claim) => void send(claim)} />}
    </form>
  );
}

/** The server's answer to a message it refused; an ambiguous command offers its candidates. */
export function ComposerError({
  error,
  waiting,
  disabled,
  onPick,
}: {
  error: ApiError;
  waiting: number;
  disabled: boolean;
  onPick: (claim: CommandClaim) => void;
}) {
  const candidates = error.code === "slash_command_ambiguous" ? candidatesFrom(error.details) : [];
  return (
    <div className="error composer-error" role="alert" data-testid="composer-error" data-code={error.code}>
      <p>{refusalWords(error, waiting)}</p>
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
