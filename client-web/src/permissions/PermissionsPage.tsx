/**
 * Permissions: what the person lets AI employees do without asking.
 *
 * "AI actions": per employee, whether its write tools may run at all for this person (on for
 * a bounded time; turning it off cancels that employee's waiting write calls). "Don't ask
 * again": the live grants (tool, scope, details, created, expires, times used), each
 * revocable; a revoke takes effect on the next call. "Connect an MCP client": the person's MCP
 * tokens (../mcpTokens). The server checks everything again.
 */
import { reveal } from "../cards/reveal";
import { useCallback, useState } from "react";
import { api } from "../api/client";
import type { ActionsOut, GrantOut } from "../api/types";
import { useAppData } from "../state/appData";
import { useLoadOnFocus, usePageActions } from "../state/usePageActions";
import { PageFeedback } from "../components/PageFeedback";
import { routeHash } from "../state/route";
import { Avatar } from "../components/Avatar";
import { Modal } from "../components/Modal";
import { McpTokensSection } from "../mcpTokens/McpTokensSection";
import { argsText, scopeText, switchText, usesText, when } from "./describe";
import "./permissions.css";
import { Loading } from "../components/PageStates";

export function PermissionsPage() {
  const [grants, setGrants] = useState<GrantOut[] | null>(null);
  const [switches, setSwitches] = useState<ActionsOut[] | null>(null);
  const [confirmOff, setConfirmOff] = useState<ActionsOut | null>(null);
  const { busy, error, notice, setNotice, fail, run } = usePageActions();

  const load = useCallback(() => {
    api.grants().then(setGrants, fail);
    api.actions().then(setSwitches, fail);
  }, [fail]);
  useLoadOnFocus(load);

  const revoke = (grant: GrantOut) =>
    run(
      grant.id,
      async () => {
        await api.revokeGrant(grant.id);
        setGrants((list) => (list ?? []).filter((g) => g.id !== grant.id));
        setNotice(`${reveal(grant.tool_title)} will ask again (${scopeText(grant).toLowerCase()}).`);
      },
      load,
    );

  const setSwitch = async (state: ActionsOut, on: boolean) => {
    await run(state.employee, async () => {
      const next = await api.setActions(state.employee, on);
      setSwitches((list) => (list ?? []).map((s) => (s.employee === next.employee ? next : s)));
      const cancelled = next.cancelled_calls.length;
      setNotice(
        on
          ? `AI actions for ${reveal(next.employee_name)} are on for ${next.grant_days} days.`
          : `AI actions for ${reveal(next.employee_name)} are off.` +
              (cancelled ? ` ${cancelled === 1 ? "1 waiting action was" : `${cancelled} waiting actions were`} cancelled.` : ""),
      );
    });
    setConfirmOff(null);
  };

  return (
    <main className="permissions" data-testid="permissions-page">
      <header className="conversation-header">
        <div className="conversation-heading">
          <h1>Permissions</h1>
          <p className="muted small">What your AI employees may do without asking you first.</p>
        </div>
        <button type="button" className="small" onClick={load}>
          Refresh
        </button>
      </header>
      <div className="permissions-body">
        <PageFeedback error={error} notice={notice} noticeTestId="permissions-notice" />
        <section aria-labelledby="actions-heading">
          <h2 id="actions-heading">AI actions</h2>
          <p className="muted small">
            When off, an employee cannot change anything for you: tools that write are not offered and never run. Turning it on lasts a
            limited time.
          </p>
          {switches === null ? (
            <Loading />
          ) : (
            <ul className="switch-list">
              {switches.map((s) => (
                <SwitchRow
                  key={s.employee}
                  state={s}
                  busy={busy === s.employee}
                  onToggle={() => (s.on ? setConfirmOff(s) : void setSwitch(s, true))}
                />
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="grants-heading">
          <h2 id="grants-heading">Don’t ask again</h2>
          {grants === null ? (
            <Loading />
          ) : grants.length === 0 ? (
            <p className="muted" data-testid="grants-empty">
              Nothing runs without asking. Tick “Don’t ask again” on an approval card to add something here.
            </p>
          ) : (
            <table className="grants-table" data-testid="grants-table">
              <thead>
                <tr>
                  <th scope="col">Tool</th>
                  <th scope="col">Where</th>
                  <th scope="col">Details</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Used</th>
                  <th scope="col">
                    <span className="visually-hidden">Revoke</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {grants.map((g) => (
                  <tr key={g.id} data-testid="grant-row" data-grant-id={g.id}>
                    <td>
                      <strong>{reveal(g.tool_title)}</strong>
                      <div className="muted small">{reveal(g.employee_name)}</div>
                      {g.void_reason && <div className="warning small">{g.void_reason}</div>}
                    </td>
                    <td>
                      {g.scope === "conversation" && g.conversation_id ? (
                        <a href={routeHash({ kind: "conversation", id: g.conversation_id })}>{scopeText(g)}</a>
                      ) : (
                        scopeText(g)
                      )}
                    </td>
                    <td>{argsText(g.args)}</td>
                    <td>
                      <time dateTime={g.created_at}>{when(g.created_at)}</time>
                    </td>
                    <td>
                      <time dateTime={g.expires_at}>{when(g.expires_at)}</time>
                    </td>
                    <td>{usesText(g.uses)}</td>
                    <td>
                      <button
                        type="button"
                        className="danger small"
                        data-testid="revoke-grant"
                        disabled={busy === g.id}
                        aria-label={`Revoke: ${reveal(g.tool_title)}, ${scopeText(g)}`}
                        onClick={() => void revoke(g)}
                      >
                        Revoke
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <McpTokensSection />
      </div>
      {confirmOff && (
        <Modal
          title={`Turn off AI actions for ${reveal(confirmOff.employee_name)}?`}
          testId="actions-off-modal"
          busy={busy === confirmOff.employee}
          onClose={() => setConfirmOff(null)}
          actions={
            <button
              type="button"
              className="danger solid"
              data-testid="actions-off-confirm"
              disabled={busy === confirmOff.employee}
              onClick={() => void setSwitch(confirmOff, false)}
            >
              Turn off
            </button>
          }
        >
          <p>
            {reveal(confirmOff.employee_name)} will not be able to change anything for you until you turn AI actions on again. Actions waiting for
            your approval are cancelled, and {reveal(confirmOff.employee_name)} is told why.
          </p>
        </Modal>
      )}
    </main>
  );
}

function SwitchRow({ state, busy, onToggle }: { state: ActionsOut; busy: boolean; onToggle: () => void }) {
  const { employees } = useAppData();
  const employee = employees[state.employee];
  return (
    <li className="switch-row" data-testid="actions-row" data-employee={state.employee}>
      <span className="switch-who">
        {employee && <Avatar avatar={employee.avatar} name={employee.name} size="sm" />}
        <strong>{reveal(state.employee_name)}</strong>
      </span>
      <span className={state.on ? "switch-state on" : "switch-state off"} data-testid="actions-state">
        {switchText(state)}
      </span>
      <button type="button" className={state.on ? "small" : "primary small"} data-testid="actions-toggle" disabled={busy} onClick={onToggle}>
        {state.on ? "Turn off" : `Turn on for ${state.grant_days} days`}
      </button>
    </li>
  );
}
