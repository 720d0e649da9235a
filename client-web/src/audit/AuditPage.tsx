/**
 * The Audit page: every decision and automatic outcome on tool calls, and every access token
 * created or revoked (admins: everyone's; members: their own), filtered by tool, employee,
 * person, outcome and time range, newest first with "Show more", a CSV export of the same
 * filters, and the tool metrics of the range.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { api, asApiError, download, type ApiError } from "../api/client";
import type { AuditQuery, AuditRecordOut, ToolMetricsReport, ToolOut } from "../api/types";
import { ViewJson } from "../components/JsonView";
import { isAdmin, useAppData } from "../state/appData";
import { MetricsPanel } from "./MetricsPanel";
import { reveal } from "../cards/reveal";
import { originText } from "../cards/ToolCardHeader";
import { channelWords, localInputToIso, OUTCOME_WORDS, OUTCOMES, outcomeText, reasonText, when } from "./words";
import { Loading, Problem, problemWords } from "../components/PageStates";

interface Filters {
  tool: string;
  employee: string;
  user: string;
  outcome: string;
  /** `datetime-local` values (local time), "" for open ends. */
  from: string;
  to: string;
}

/** What failed on the page, as its problem's heading says it, and the step that retries it. */
export type AuditFailure = { error: Pick<ApiError, "status" | "code" | "message">; what: "load" | "more" | "export" };

const FAILED: Record<AuditFailure["what"], string> = {
  load: "The records could not be loaded",
  more: "More records could not be loaded",
  export: "The records could not be exported",
};

/** A failure of the Records section: a heading, the reason, the next step and its button. */
export function AuditProblem({ failure, onRetry }: { failure: AuditFailure; onRetry: () => void }) {
  return <Problem {...problemWords(failure.error, FAILED[failure.what])} onAction={onRetry} level={2} testId="audit-error" />;
}

const EMPTY: Filters = { tool: "", employee: "", user: "", outcome: "", from: "", to: "" };

function toQuery(f: Filters): AuditQuery {
  return {
    tool: f.tool || undefined,
    employee: f.employee || undefined,
    user: f.user || undefined,
    outcome: (f.outcome || undefined) as AuditQuery["outcome"],
    since: localInputToIso(f.from),
    until: localInputToIso(f.to),
  };
}

export function AuditPage() {
  const { me, tools, employees } = useAppData();
  const admin = isAdmin(me);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [records, setRecords] = useState<AuditRecordOut[] | null>(null);
  const [total, setTotal] = useState(0);
  const [nextBefore, setNextBefore] = useState<number | null>(null);
  const [error, setError] = useState<AuditFailure | null>(null);
  const [metrics, setMetrics] = useState<ToolMetricsReport | null>(null);
  const [metricsError, setMetricsError] = useState<string | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [exporting, setExporting] = useState(false);
  // People seen in the records so far (no user directory for members), for the Person filter:
  // owners and the people who decided (every approver of a call needing several).
  const [people, setPeople] = useState<Record<string, string>>({});
  const request = useRef(0);
  const query = useMemo(() => toQuery(filters), [filters]);

  const remember = (list: AuditRecordOut[]) => setPeople((known) => peopleOf(list, known));

  const load = useCallback(async () => {
    const mine = ++request.current;
    setError(null);
    setMetricsError(null);
    try {
      const page = await api.audit(query);
      if (mine !== request.current) return;
      setRecords(page.records);
      setTotal(page.total);
      setNextBefore(page.next_before ?? null);
      remember(page.records);
    } catch (e) {
      if (mine === request.current) setError({ error: asApiError(e), what: "load" });
    }
    try {
      const report = await api.toolMetrics(query.since, query.until);
      if (mine === request.current) setMetrics(report);
    } catch (e) {
      if (mine === request.current) setMetricsError(asApiError(e).message);
    }
  }, [query]);

  useEffect(() => {
    void load();
  }, [load]);

  const more = async () => {
    if (nextBefore == null) return;
    setLoadingMore(true);
    try {
      const page = await api.audit(query, nextBefore);
      setRecords((list) => [...(list ?? []), ...page.records]);
      setNextBefore(page.next_before ?? null);
      remember(page.records);
      setError(null);
    } catch (e) {
      setError({ error: asApiError(e), what: "more" });
    } finally {
      setLoadingMore(false);
    }
  };

  const exportCsv = async () => {
    setExporting(true);
    try {
      await download(api.auditExportUrl(query), "interlock-audit.csv");
      setError(null);
    } catch (e) {
      setError({ error: asApiError(e), what: "export" });
    } finally {
      setExporting(false);
    }
  };

  const set = (key: keyof Filters) => (value: string) => setFilters((f) => ({ ...f, [key]: value }));
  const toolNames = Object.values(tools).sort((a, b) => a.title.localeCompare(b.title));
  const employeeList = Object.values(employees).sort((a, b) => a.name.localeCompare(b.name));
  const filtered = Object.values(filters).some(Boolean);

  return (
    <main className="conversation audit-page" data-testid="audit-page">
      <div className="pad audit-scroll">
        <h1>Audit</h1>
        <p className="muted">
          {admin
            ? "Every decision on a tool call and every call that ran without asking, for everyone."
            : "Every decision on tool calls in your conversations, and the calls that ran without asking."}{" "}
          Records are chained with SHA-256, so any later change to them shows.
        </p>
        <form className="audit-filters" aria-label="Filters" onSubmit={(e) => e.preventDefault()}>
          <label>
            Tool
            <select data-testid="filter-tool" value={filters.tool} onChange={(e) => set("tool")(e.target.value)}>
              <option value="">Any tool</option>
              {toolNames.map((t) => (
                <option key={t.name} value={t.name}>
                  {reveal(t.title)}
                </option>
              ))}
            </select>
          </label>
          <label>
            Employee
            <select data-testid="filter-employee" value={filters.employee} onChange={(e) => set("employee")(e.target.value)}>
              <option value="">Anyone</option>
              {employeeList.map((emp) => (
                <option key={emp.slug} value={emp.slug}>
                  {reveal(emp.name)}
                </option>
              ))}
            </select>
          </label>
          {admin && (
            <label>
              Person
              <select data-testid="filter-user" value={filters.user} onChange={(e) => set("user")(e.target.value)}>
                <option value="">Everyone</option>
                {Object.entries(people)
                  .sort((a, b) => a[1].localeCompare(b[1]))
                  .map(([id, name]) => (
                    <option key={id} value={id}>
                      {name}
                    </option>
                  ))}
              </select>
            </label>
          )}
          <label>
            Outcome
            <select data-testid="filter-outcome" value={filters.outcome} onChange={(e) => set("outcome")(e.target.value)}>
              <option value="">Any outcome</option>
              {OUTCOMES.map((o) => (
                <option key={o} value={o}>
                  {OUTCOME_WORDS[o]}
                </option>
              ))}
            </select>
          </label>
          <label>
            From
            <input type="datetime-local" data-testid="filter-from" value={filters.from} onChange={(e) => set("from")(e.target.value)} />
          </label>
          <label>
            Until
            <input type="datetime-local" data-testid="filter-to" value={filters.to} onChange={(e) => set("to")(e.target.value)} />
          </label>
          <div className="audit-filter-actions">
            {filtered && (
              <button type="button" data-testid="filter-clear" onClick={() => setFilters(EMPTY)}>
                Clear filters
              </button>
            )}
            <button type="button" data-testid="audit-export" disabled={exporting} onClick={() => void exportCsv()}>
              {exporting ? "Exporting…" : "Export CSV"}
            </button>
          </div>
        </form>

        <h2>Tools</h2>
        <p className="muted small">
          {filters.from || filters.to ? "In the chosen time range." : "The last 7 days."} Waits run from the proposal to a person's decision.
        </p>
        <MetricsPanel report={metrics} error={metricsError} />

        <h2>Records</h2>
        {error && (
          <AuditProblem
            failure={error}
            onRetry={() => void (error.what === "more" ? more() : error.what === "export" ? exportCsv() : load())}
          />
        )}
        {records == null ? (
          !error && <Loading />
        ) : records.length === 0 ? (
          <p className="muted" data-testid="audit-empty">
            {filtered ? "No records match these filters." : "Nothing decided yet."}
          </p>
        ) : (
          <>
            <p className="muted small" data-testid="audit-total">
              {total === 1 ? "1 record" : `${total} records`}
              {filtered ? " match" : ""}, newest first.
            </p>
            <div className="table-wrap">
              <table className="data-table" data-testid="audit-table">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Tool</th>
                    <th scope="col">Employee</th>
                    <th scope="col">Outcome</th>
                    <th scope="col">Decided by</th>
                    {admin && <th scope="col">Conversation of</th>}
                    <th scope="col">Via</th>
                    <th scope="col">Details</th>
                  </tr>
                </thead>
                <tbody>
                  {records.map((r) => (
                    <AuditRow key={r.seq} record={r} admin={admin} employeeName={employees[r.employee]?.name ?? r.employee} tool={tools[r.tool]} />
                  ))}
                </tbody>
              </table>
            </div>
            {nextBefore != null && (
              <button type="button" data-testid="audit-more" disabled={loadingMore} onClick={() => void more()}>
                {loadingMore ? "Loading…" : "Show more"}
              </button>
            )}
          </>
        )}
      </div>
    </main>
  );
}

/** `known` plus the people of `list`: each record's owner and, when a person decided, the decider (id -> name). */
export function peopleOf(list: AuditRecordOut[], known: Record<string, string> = {}): Record<string, string> {
  const next = { ...known };
  for (const r of list) {
    next[r.owner_id] = r.owner_name;
    if (r.decider_is_person) next[r.decider] = r.decided_by;
  }
  return next;
}

/** One record: a tool call's outcome (with a link to the call) or an access token's change. */
export function AuditRow({ record: r, admin, employeeName, tool }: { record: AuditRecordOut; admin: boolean; employeeName: string; tool?: ToolOut }) {
  return (
    <tr data-testid="audit-row" data-kind={r.kind} data-outcome={r.outcome} data-tool={r.tool}>
      <td className="nowrap">{when(r.created_at)}</td>
      <td>{reveal(r.tool_title)}</td>
      <td>{reveal(employeeName)}</td>
      <td>
        <span className={`badge outcome-${r.outcome}`} data-testid="audit-outcome">
          {outcomeText(r, tool)}
        </span>
      </td>
      <td>{reveal(r.decided_by)}</td>
      {admin && <td>{reveal(r.owner_name)}</td>}
      <td>
        {channelWords(r.channel)}
        {r.client_name && (
          <div className="small muted" data-testid="audit-origin" title={originText(r) ?? undefined}>
            call from {reveal(r.client_name)}
          </div>
        )}
      </td>
      <td className="audit-details">
        {r.reason && <div className="small">“{reveal(reasonText(r) ?? "")}”</div>}
        {r.kind === "tool_call" && (
          <a className="small" href={`#/c/${encodeURIComponent(r.conversation_id)}/call/${encodeURIComponent(r.tool_call_id)}`}>
            Open the call
          </a>
        )}
        <ViewJson value={{ proposed_args: r.proposed_args, executed_args: r.executed_args, hash: r.hash }} />
      </td>
    </tr>
  );
}
