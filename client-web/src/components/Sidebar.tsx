/**
 * The conversation list (newest first) with the "Approvals" link and each conversation's
 * waiting decisions; a conversation can be renamed (inline; Enter saves, Esc cancels) and
 * deleted (asks first). Below 700 px wide the sidebar is a drawer (see App).
 */
import { useEffect, useRef, useState, type FormEvent } from "react";
import { asApiError, fieldErrorWords } from "../api/client";
import type { ConversationSummary } from "../api/types";
import { reveal } from "../cards/reveal";
import { isAdmin, useAppData } from "../state/appData";

interface Props {
  conversations: ConversationSummary[];
  activeId: string | null;
  adminActive: boolean;
  approvalsActive: boolean;
  /** The Audit page is open. */
  auditActive?: boolean;
  permissionsActive?: boolean;
  /** Decisions waiting across conversations (the Approvals link's count). */
  waitingTotal: number;
  /** The live count of the open conversation (fresher than the list's). */
  openWaiting?: { id: string; waiting: number } | null;
  /** Opens the employee picker. */
  onNew: () => void;
  onOpen: (id: string) => void;
  onApprovals: () => void;
  onRename: (id: string, title: string) => Promise<void>;
  onDelete: (id: string) => Promise<void>;
  /** Older conversations are not loaded yet (the list is read a page at a time). */
  hasMore?: boolean;
  /** Loads the next page (when the end of the list scrolls into view, or on the button). */
  onLoadMore?: () => void;
}

/** The end of a list with more to load: loads when it scrolls into view (or on click). */
function LoadMore({ onLoadMore }: { onLoadMore: () => void }) {
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    const node = ref.current;
    if (!node || typeof IntersectionObserver === "undefined") return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) onLoadMore();
    });
    observer.observe(node);
    return () => observer.disconnect();
  }, [onLoadMore]);
  return (
    <li ref={ref} className="load-more">
      <button type="button" className="link small" data-testid="load-more-conversations" onClick={onLoadMore}>
        Show older conversations
      </button>
    </li>
  );
}

const STATUS_WORDS: Record<string, string> = { running: "working", paused: "waiting" };

export function Sidebar(props: Props) {
  const { conversations, activeId, adminActive, approvalsActive, waitingTotal, openWaiting } = props;
  const { employees, me } = useAppData();
  return (
    <nav className="sidebar" aria-label="Conversations" id="sidebar">
      <div className="sidebar-head">
        <span className="brand">Interlock</span>
        <button type="button" className="primary" data-testid="new-chat" onClick={props.onNew}>
          New chat
        </button>
      </div>
      <a
        href="#/approvals"
        className={approvalsActive ? "nav-link approvals-link active" : "nav-link approvals-link"}
        aria-current={approvalsActive ? "page" : undefined}
        data-testid="approvals-link"
        onClick={(e) => {
          e.preventDefault();
          props.onApprovals();
        }}
      >
        Approvals
        {waitingTotal > 0 && (
          <span className="count-badge" data-testid="approvals-count" aria-label={`${waitingTotal} waiting`}>
            {waitingTotal}
          </span>
        )}
      </a>
      <ul className="conversation-list">
        {conversations.map((c) => {
          const waiting = openWaiting && openWaiting.id === c.id ? openWaiting.waiting : (c.pending ?? 0);
          return (
            <ConversationItem
              key={c.id}
              conversation={c}
              active={c.id === activeId}
              waiting={waiting}
              employeeName={(c.employee && employees[c.employee]?.name) || c.employee}
              onOpen={props.onOpen}
              onRename={props.onRename}
              onDelete={props.onDelete}
            />
          );
        })}
        {conversations.length === 0 && <li className="muted small pad">No conversations yet.</li>}
        {props.hasMore && props.onLoadMore && <LoadMore onLoadMore={props.onLoadMore} />}
      </ul>
      <div className="sidebar-foot">
        <a
          href="#/permissions"
          className={props.permissionsActive ? "nav-link active" : "nav-link"}
          aria-current={props.permissionsActive ? "page" : undefined}
          data-testid="permissions-link"
        >
          Permissions
        </a>
        <a
          href="#/audit"
          className={props.auditActive ? "nav-link active" : "nav-link"}
          aria-current={props.auditActive ? "page" : undefined}
          data-testid="audit-link"
        >
          Audit
        </a>
        {isAdmin(me) && (
          <a href="#/admin" className={adminActive ? "nav-link active" : "nav-link"} aria-current={adminActive ? "page" : undefined} data-testid="admin-link">
            Admin: employees and skills
          </a>
        )}
      </div>
    </nav>
  );
}

interface ItemProps {
  conversation: ConversationSummary;
  active: boolean;
  waiting: number;
  employeeName: string | null | undefined;
  onOpen: (id: string) => void;
  onRename: (id: string, title: string) => Promise<void>;
  onDelete: (id: string) => Promise<void>;
}

function ConversationItem({ conversation: c, active, waiting, employeeName, onOpen, onRename, onDelete }: ItemProps) {
  const [mode, setMode] = useState<"view" | "rename" | "delete">("view");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const renameButton = useRef<HTMLButtonElement>(null);
  const deleteButton = useRef<HTMLButtonElement>(null);
  const confirmButton = useRef<HTMLButtonElement>(null);
  const title = reveal(c.title || "New conversation"); // a hidden character reads [U+202E]

  useEffect(() => {
    if (mode === "delete") confirmButton.current?.focus();
  }, [mode]);

  const close = (focus: "rename" | "delete") => {
    setMode("view");
    setError(null);
    requestAnimationFrame(() => (focus === "rename" ? renameButton : deleteButton).current?.focus());
  };

  const run = async (work: () => Promise<void>, after: () => void) => {
    setBusy(true);
    setError(null);
    try {
      await work();
      after();
    } catch (e) {
      const error = asApiError(e);
      setError(fieldErrorWords(error) ?? error.message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <li className={active ? "conversation-item active" : "conversation-item"} data-testid="conversation-entry" data-conversation-id={c.id}>
      {mode === "rename" ? (
        <RenameForm
          initial={c.title ?? ""}
          busy={busy}
          onCancel={() => close("rename")}
          onSave={(next) => void run(() => onRename(c.id, next), () => close("rename"))}
        />
      ) : (
        <div className="conversation-row">
          <button
            type="button"
            className={active ? "conversation-link active" : "conversation-link"}
            aria-current={active ? "page" : undefined}
            data-testid="conversation-item"
            data-conversation-id={c.id}
            data-waiting={waiting}
            onClick={() => onOpen(c.id)}
          >
            <span className="conversation-title" title={c.title ? title : undefined}>
              {title}
            </span>
            <span className="conversation-meta">
              <span className="conversation-employee" title={employeeName ? reveal(employeeName) : undefined}>
                {employeeName && reveal(employeeName)}
              </span>
              {waiting > 0 ? (
                <span className="badge status-paused" data-testid="conversation-waiting">
                  {waiting === 1 ? "1 decision" : `${waiting} decisions`}
                </span>
              ) : (
                c.status !== "idle" && <span className={`badge status-${c.status}`}>{STATUS_WORDS[c.status] ?? c.status}</span>
              )}
            </span>
          </button>
          <div className="conversation-tools">
            <button
              ref={renameButton}
              type="button"
              className="icon"
              aria-label={`Rename “${title}”`}
              title="Rename"
              data-testid="conversation-rename"
              onClick={() => setMode("rename")}
            >
              <Icon path="M4 20h4L18.5 9.5l-4-4L4 16v4zM13.5 6.5l4 4" />
            </button>
            <button
              ref={deleteButton}
              type="button"
              className="icon"
              aria-label={`Delete “${title}”`}
              title="Delete"
              data-testid="conversation-delete"
              onClick={() => setMode("delete")}
            >
              <Icon path="M5 7h14M10 7V4h4v3M7 7l1 13h8l1-13M10 11v6M14 11v6" />
            </button>
          </div>
        </div>
      )}
      {mode === "delete" && (
        <div
          className="confirm-delete sidebar-confirm"
          role="alertdialog"
          aria-label={`Delete “${title}”?`}
          onKeyDown={(e) => {
            if (e.key === "Escape") {
              e.preventDefault();
              close("delete");
            }
          }}
        >
          <span>Delete this conversation and its history? This cannot be undone.</span>
          <div className="actions">
            <button
              ref={confirmButton}
              type="button"
              className="danger"
              disabled={busy}
              data-testid="conversation-delete-confirm"
              onClick={() => void run(() => onDelete(c.id), () => setMode("view"))}
            >
              {busy ? "Deleting…" : "Delete"}
            </button>
            <button type="button" disabled={busy} data-testid="conversation-delete-cancel" onClick={() => close("delete")}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {error && (
        <p className="error small" role="alert" data-testid="conversation-error">
          {error}
        </p>
      )}
    </li>
  );
}

function RenameForm({
  initial,
  busy,
  onSave,
  onCancel,
}: {
  initial: string;
  busy: boolean;
  onSave: (title: string) => void;
  onCancel: () => void;
}) {
  const [value, setValue] = useState(initial);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const trimmed = value.trim();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (trimmed && trimmed !== initial) onSave(trimmed);
    else onCancel();
  };
  return (
    <form className="rename-form" onSubmit={submit} data-testid="rename-form">
      <label className="visually-hidden" htmlFor="rename-input">
        Conversation title
      </label>
      <input
        id="rename-input"
        ref={input}
        value={value}
        maxLength={200}
        disabled={busy}
        data-testid="rename-input"
        onChange={(e) => setValue(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.preventDefault();
            onCancel();
          }
        }}
      />
      <div className="actions">
        <button type="submit" className="primary small" disabled={busy || !trimmed} data-testid="rename-save">
          Save
        </button>
        <button type="button" className="small" disabled={busy} onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A small line icon (drawn, so it shows whatever fonts the system has). */
function Icon({ path }: { path: string }) {
  return (
    <svg className="icon-svg" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">
      <path d={path} fill="none" stroke="currentColor" strokeWidth="1.8" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}
