/**
 * "Connect an MCP client" (on the Permissions page): the person's MCP tokens.
 *
 * An MCP client (a desktop assistant, an IDE) should hold an MCP token, not the person's own
 * token: an MCP token works at /mcp only, so the program holding it cannot approve its own
 * actions or read the person's conversations (the server refuses it everywhere else). Here the
 * person creates one (shown once, with a configuration to paste into the client), sees when
 * each was last used, and revokes one; a revoked token is refused from its next request on.
 */
import { useCallback, useState } from "react";
import { api } from "../api/client";
import { reveal } from "../cards/reveal";
import type { McpTokenCreated, McpTokenOut } from "../api/types";
import { useAppData } from "../state/appData";
import { useLoadOnFocus, usePageActions } from "../state/usePageActions";
import { PageFeedback } from "../components/PageFeedback";
import { when } from "../permissions/describe";
import { lastUsedText, mcpSnippet, statusText } from "./describe";
import "./mcpTokens.css";
import { Loading } from "../components/PageStates";

const DEFAULT_EMPLOYEE = "assistant";

export function McpTokensSection() {
  const { employees } = useAppData();
  const [tokens, setTokens] = useState<McpTokenOut[] | null>(null);
  const [name, setName] = useState("");
  const [employee, setEmployee] = useState(DEFAULT_EMPLOYEE);
  const [created, setCreated] = useState<McpTokenCreated | null>(null);
  const { busy, error, notice, setNotice, fail, run } = usePageActions();

  const load = useCallback(() => {
    api.mcpTokens().then(setTokens, fail);
  }, [fail]);
  useLoadOnFocus(load);

  const create = () =>
    run("create", async () => {
      setNotice(null);
      const made = await api.createMcpToken(name.trim());
      setCreated(made);
      setName("");
      load();
    });

  const revoke = (token: McpTokenOut) =>
    run(
      token.id,
      async () => {
        const revoked = await api.revokeMcpToken(token.id);
        setTokens((list) => (list ?? []).map((t) => (t.id === revoked.id ? revoked : t)));
        if (created?.id === token.id) setCreated(null);
        setNotice(`“${reveal(token.name)}” no longer works: its next request is refused.`);
      },
      load,
    );

  const choices = Object.values(employees);
  return (
    <section aria-labelledby="mcp-heading" data-testid="mcp-tokens">
      <h2 id="mcp-heading">Connect an MCP client</h2>
      <p className="muted small">
        A desktop assistant or an IDE can use your employees’ tools over MCP, with the same approvals as chat. Give it an MCP token
        of its own rather than your sign-in token: an MCP token works only for MCP, so the program holding it cannot approve its own
        actions or read your conversations.
      </p>
      <PageFeedback error={error} notice={notice} noticeTestId="mcp-notice" />
      <form
        className="mcp-create"
        onSubmit={(e) => {
          e.preventDefault();
          void create();
        }}
      >
        <label>
          Client name
          <input
            data-testid="mcp-token-name"
            value={name}
            maxLength={100}
            placeholder="Claude Desktop"
            onChange={(e) => setName(e.target.value)}
          />
        </label>
        {choices.length > 1 && (
          <label>
            Acts through
            <select data-testid="mcp-employee" value={employee} onChange={(e) => setEmployee(e.target.value)}>
              {choices.map((emp) => (
                <option key={emp.slug} value={emp.slug}>
                  {emp.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <button type="submit" className="primary small" data-testid="mcp-create" disabled={busy === "create" || !name.trim()}>
          Create token
        </button>
      </form>
      {created && <CreatedToken token={created} employee={employee} onDone={() => setCreated(null)} />}
      {tokens === null ? (
        <Loading />
      ) : tokens.length === 0 ? (
        <p className="muted" data-testid="mcp-tokens-empty">
          No MCP tokens yet.
        </p>
      ) : (
        <table className="grants-table" data-testid="mcp-tokens-table">
          <thead>
            <tr>
              <th scope="col">Client</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="visually-hidden">Revoke</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.id} data-testid="mcp-token-row" data-token-id={t.id} data-revoked={t.revoked_at ? "true" : "false"}>
                <td>
                  <strong>{reveal(t.name)}</strong>
                </td>
                <td>
                  <time dateTime={t.created_at}>{when(t.created_at)}</time>
                </td>
                <td>{lastUsedText(t)}</td>
                <td data-testid="mcp-token-status">{statusText(t)}</td>
                <td>
                  {!t.revoked_at && (
                    <button
                      type="button"
                      className="danger small"
                      data-testid="mcp-revoke"
                      disabled={busy === t.id}
                      aria-label={`Revoke the MCP token “${reveal(t.name)}”`}
                      onClick={() => void revoke(t)}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The new token, shown this once, with the configuration to paste into the client. */
export function CreatedToken({
  token,
  employee,
  onDone,
  origin = window.location.origin,
}: {
  token: McpTokenCreated;
  employee: string;
  onDone: () => void;
  origin?: string;
}) {
  const [copied, setCopied] = useState<string | null>(null);
  const snippet = mcpSnippet(origin, employee, token.token);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(snippet);
      setCopied("Copied to the clipboard.");
    } catch {
      setCopied("Could not reach the clipboard: select the text and copy it.");
    }
  };
  return (
    <div className="mcp-created" data-testid="mcp-created" role="region" aria-label={`New MCP token “${reveal(token.name)}”`}>
      <p>
        <strong>Copy this now.</strong> The token for “{reveal(token.name)}” is shown only this once; if you lose it, revoke it and create
        another.
      </p>
      <p className="small">
        Paste this into your MCP client’s configuration (the <code>mcpServers</code> shape most clients read; VS Code calls the key{" "}
        <code>servers</code>):
      </p>
      <pre data-testid="mcp-snippet">{snippet}</pre>
      <div className="mcp-created-actions">
        <button type="button" className="primary small" data-testid="mcp-copy" onClick={() => void copy()}>
          Copy configuration
        </button>
        <button type="button" className="small" data-testid="mcp-done" onClick={onDone}>
          Done
        </button>
        {copied && (
          <span className="small" role="status" data-testid="mcp-copied">
            {copied}
          </span>
        )}
      </div>
    </div>
  );
}
