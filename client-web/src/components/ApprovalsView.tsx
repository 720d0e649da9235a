/**
 * Approvals: every call waiting for this person across their conversations, newest first
 * (GET /api/approvals), each with its employee and conversation and a link to its card.
 *
 * Live: re-read when a conversation changes in this tab or another (broadcast), when the
 * window gets focus or becomes visible, and every 5 s while visible.
 */
import { useCallback, useEffect, useRef, useState } from "react";
import { asApiError, type ApiError } from "../api/client";
import { api } from "../api/client";
import type { ApprovalOut } from "../api/types";
import { toolTitle, useAppData } from "../state/appData";
import { announceActivity, onActivity } from "../state/broadcast";
import { statusWords } from "../cards/status/status";
import { argsSummary } from "../cards/fields/schemaFields";
import { reveal } from "../cards/reveal";
import { originText } from "../cards/ToolCardHeader";
import { questionText } from "../state/opLog";
import { routeHash } from "../state/route";
import { ApproverItem } from "./ApproverItem";
import { Avatar } from "./Avatar";
import { Loading, Problem, problemWords } from "./PageStates";

/** Re-read at least this often while the view is visible. */
export const APPROVALS_REFRESH_MS = 5_000;

export function ApprovalsView({ onLoaded }: { onLoaded?: (items: ApprovalOut[]) => void }) {
  const { tools, employees, me } = useAppData();
  const [items, setItems] = useState<ApprovalOut[] | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  // Refused decisions (already decided, expired, cancelled, deleted): kept after the re-read
  // drops their item, until the person dismisses them.
  const [refusals, setRefusals] = useState<{ id: string; text: string }[]>([]);
  const request = useRef(0);
  const onLoadedRef = useRef(onLoaded);
  onLoadedRef.current = onLoaded;

  const load = useCallback(() => {
    const mine = ++request.current;
    api.approvals().then(
      (list) => {
        if (mine !== request.current) return; // an older answer arriving last
        setItems(list);
        setError(null);
        onLoadedRef.current?.(list);
      },
      (e: unknown) => mine === request.current && setError(asApiError(e)),
    );
  }, []);

  useEffect(() => {
    load();
    const offActivity = onActivity(load);
    const onVisible = () => document.visibilityState === "visible" && load();
    window.addEventListener("focus", load);
    document.addEventListener("visibilitychange", onVisible);
    const timer = window.setInterval(() => document.visibilityState === "visible" && load(), APPROVALS_REFRESH_MS);
    return () => {
      offActivity();
      window.removeEventListener("focus", load);
      document.removeEventListener("visibilitychange", onVisible);
      window.clearInterval(timer);
    };
  }, [load]);

  return (
    <main className="approvals" data-testid="approvals-view">
      <header className="conversation-header">
        <div className="conversation-heading">
          <h1>Approvals</h1>
          <p className="muted small">Every call waiting for your decision, newest first.</p>
        </div>
        <button type="button" className="small" onClick={load} data-testid="approvals-refresh">
          Refresh
        </button>
      </header>
      <div className="approvals-body">
        {error && <Problem {...problemWords(error, "The waiting decisions could not be loaded")} onAction={load} level={2} testId="approvals-load-error" />}
        {refusals.length > 0 && (
          <ul className="approval-refusals" aria-label="Decisions not applied">
            {refusals.map((r) => (
              <li key={r.id} className="notice" role="status" data-testid="approval-refused">
                {r.text}{" "}
                <button type="button" className="small" onClick={() => setRefusals((all) => all.filter((x) => x.id !== r.id))}>
                  Dismiss
                </button>
              </li>
            ))}
          </ul>
        )}
        {items === null && !error && <Loading />}
        {items !== null && items.length === 0 && (
          <p className="muted" data-testid="approvals-empty">
            Nothing is waiting for you.
          </p>
        )}
        {items !== null && items.length > 0 && (
          <ul className="approval-list" aria-label="Waiting decisions">
            {items.map((item) => {
              const { tool_call: call, conversation } = item;
              if (item.role === "approver") {
                return (
                  <ApproverItem
                    key={call.id}
                    item={item}
                    tool={tools[call.name]}
                    tools={tools}
                    employee={conversation.employee ? employees[conversation.employee] : undefined}
                    myId={me?.id}
                    onDecided={() => announceActivity({ kind: "conversations" })}
                    onRefused={(text) => setRefusals((all) => [...all.filter((x) => x.id !== call.id), { id: call.id, text }])}
                  />
                );
              }
              const employee = conversation.employee ? employees[conversation.employee] : undefined;
              const args = call.executed_args ?? call.proposed_args;
              const summary = call.confirmation?.summary || questionText(call) || argsSummary(tools[call.name]?.input_schema, args);
              return (
                <li key={call.id} className="approval-item" data-testid="approval-item" data-tool-call-id={call.id} data-conversation-id={conversation.id}>
                  <a className="approval-link" href={routeHash({ kind: "conversation", id: conversation.id, call: call.id })}>
                    <span className="approval-who">
                      {employee && <Avatar avatar={employee.avatar} name={employee.name} size="sm" />}
                      <strong>{reveal(employee?.name ?? conversation.employee ?? "Employee")}</strong>
                      <span className="muted"> in </span>
                      <span className="approval-conversation">{reveal(conversation.title || "New conversation")}</span>
                      {originText(call) && (
                        <span className="approval-origin" data-testid="approval-origin">
                          · {originText(call)}
                        </span>
                      )}
                    </span>
                    <span className="approval-what">
                      <span className="approval-tool">{toolTitle(tools, call.name, call.title)}</span>
                      <span className="approval-summary">{reveal(summary)}</span>
                    </span>
                    <span className="approval-meta small muted">
                      <span className={`badge status-${call.status} tone-${statusWords(call).tone}`}>{statusWords(call).label}</span>{" "}
                      <time dateTime={call.created_at}>{whenText(call.created_at)}</time>
                    </span>
                  </a>
                </li>
              );
            })}
          </ul>
        )}
      </div>
    </main>
  );
}

/** "today 14:03", else the date and time, in the browser's locale. */
function whenText(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const time = d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  return d.toDateString() === new Date().toDateString() ? `today ${time}` : `${d.toLocaleDateString()} ${time}`;
}
