import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { McpServerOut } from "../api/types";
import { McpServersPanel, stateSentence } from "./McpServersPanel";

function server(overrides: Partial<McpServerOut> = {}): McpServerOut {
  return {
    name: "docs",
    title: "Company docs",
    origin: "settings",
    transport: "http",
    url: "https://docs.example.com/mcp",
    command: null,
    connection: "docs",
    state: "ready",
    error: null,
    retry_in_s: null,
    protocol_version: "2026-07-28",
    tools: [
      {
        name: "mcp.docs.get_user-d77d8fbc",
        provider_name: "mcp_docs_get_user_d77d8fbc",
        remote_name: "get user",
        title: "get user",
        permission: "ASK",
        write: true,
        available: true,
        reason: null,
      },
      {
        name: "mcp.docs.refused",
        provider_name: "mcp_docs_refused",
        remote_name: "refused",
        title: "refused",
        permission: "ASK",
        write: true,
        available: false,
        reason: "Interlock refuses its input JSON Schema: it uses unsupported keyword 'if' at /.",
      },
    ],
    ...overrides,
  };
}

describe("MCP servers panel", () => {
  it("says in words whether a server is reachable", () => {
    expect(stateSentence(server())).toBe("Connected: 1 of 2 tools available.");
    expect(stateSentence(server({ state: "down", error: "it closed the connection", retry_in_s: 3.2 }))).toBe(
      "Not reachable: it closed the connection. Next try in 4 s.",
    );
  });

  it("lists tools with the server's own name, why one is unavailable, and a Refresh button", () => {
    const html = renderToStaticMarkup(<McpServersPanel servers={[server()]} onRefreshed={() => {}} />);
    expect(html).toContain("mcp.docs.get_user-d77d8fbc");
    expect(html).toContain("(on the server: “get user”)");
    expect(html).toContain("Unavailable: Interlock refuses its input JSON Schema");
    expect(html).toContain('aria-label="Refresh the tools of Company docs"');
    expect(html).not.toContain("(on the server: “refused”)");
  });
});
