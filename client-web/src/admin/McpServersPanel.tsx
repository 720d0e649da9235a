/**
 * Remote MCP servers whose tools Interlock offers (admins): whether each is reachable, its tools
 * (Interlock name, the server's own name, why one is unavailable) and a Refresh button that
 * lists the server's tools again now (a server that is down is tried at once).
 */
import { reveal } from "../cards/reveal";
import { useState } from "react";
import { api, asApiError } from "../api/client";
import type { McpServerOut } from "../api/types";

const STATE_LABEL: Record<McpServerOut["state"], string> = {
  connecting: "connecting",
  ready: "connected",
  down: "not reachable",
  stopped: "stopped",
};

const STATE_TONE: Record<McpServerOut["state"], string> = {
  connecting: "status-running",
  ready: "status-succeeded",
  down: "status-failed",
  stopped: "status-failed",
};

/**
 * A remote server's text as it is written: control and format characters (an RTL override
 * that would make "delete\u202efdp.txt" read "deletetxt.pdf", zero-width spaces, escapes) are
 * shown as [U+202E]. The server side does the same for titles and cards.
 */
export function visible(text: string): string {
  return text.replace(
    /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/gu,
    (c) => `[U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}]`,
  );
}

/** One sentence about a server's state, e.g. "Not reachable: it closed the connection. Next try in 4 s." */
export function stateSentence(server: McpServerOut): string {
  if (server.state === "ready") {
    const available = server.tools.filter((t) => t.available).length;
    return `Connected: ${available} of ${server.tools.length} tools available.`;
  }
  if (server.state === "down") {
    const retry = server.retry_in_s != null ? ` Next try in ${Math.ceil(server.retry_in_s)} s.` : "";
    return `Not reachable: ${server.error ?? "no reason given"}.${retry}`;
  }
  return server.state === "connecting" ? "Connecting…" : "Stopped.";
}

interface Props {
  servers: McpServerOut[];
  /** Called with the server as the refresh left it. */
  onRefreshed: (server: McpServerOut) => void;
}

export function McpServersPanel({ servers, onRefreshed }: Props) {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = async (name: string) => {
    setBusy(name);
    setError(null);
    try {
      onRefreshed(await api.refreshMcpServer(name));
    } catch (e) {
      setError(asApiError(e).message);
    } finally {
      setBusy(null);
    }
  };
  return (
    <section className="admin-section" aria-labelledby="admin-mcp-heading" data-testid="mcp-servers">
      <h2 id="admin-mcp-heading">
        MCP servers <span className="muted small">({servers.length})</span>
      </h2>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <ul className="skill-list">
        {servers.map((s) => (
          <li key={s.name} className="skill-row" data-testid="mcp-server-row" data-server={s.name} data-state={s.state}>
            <div className="skill-line">
              <strong>{reveal(s.title)}</strong>
              <span className={`badge ${STATE_TONE[s.state]}`}>{STATE_LABEL[s.state]}</span>
              <button
                type="button"
                data-testid="mcp-refresh"
                disabled={busy !== null}
                aria-label={`${busy === s.name ? "Refreshing" : "Refresh"} the tools of ${reveal(s.title)}`}
                onClick={() => void refresh(s.name)}
              >
                {busy === s.name ? "Refreshing…" : "Refresh"}
              </button>
            </div>
            <p className="muted small">
              {reveal(stateSentence(s))} <code>{reveal(s.url ?? s.command ?? "")}</code>
              {s.origin === "settings" ? " (from the settings)" : ""}
            </p>
            {s.tools.length > 0 && (
              <ul className="small">
                {s.tools.map((t) => (
                  <li key={t.name} data-testid="mcp-tool" data-available={t.available}>
                    <code>{reveal(t.name)}</code>
                    {t.remote_name !== t.name.split(".").slice(2).join(".") && (
                      <span className="muted"> (on the server: “{visible(t.remote_name)}”)</span>
                    )}{" "}
                    <span className="muted">{t.permission}</span>
                    {!t.available && t.reason && <span className="error"> Unavailable: {reveal(t.reason)}</span>}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
        {servers.length === 0 && <li className="muted">No MCP servers configured.</li>}
      </ul>
    </section>
  );
}
