import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { McpServerOut } from "../api/types";
import { McpServersPanel, stateSentence, visible } from "./McpServersPanel";

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

describe("visible", () => {
  it("shows control and format characters of a remote name instead of obeying them", () => {
    expect(visible("delete\u202efdp.txt")).toBe("delete[U+202E]fdp.txt");
    expect(visible("safe\u200bread")).toBe("safe[U+200B]read");
    expect(visible("bell\x07\x1b[31mred")).toBe("bell[U+0007][U+001B][31mred");
    expect(visible("get user")).toBe("get user");
    expect(visible("日本語 ünïcode")).toBe("日本語 ünïcode");
  });

  it("is used for the remote name in the panel", () => {
    const s = server();
    s.tools[0] = { ...s.tools[0], remote_name: "delete\u202efdp.txt" };
    const html = renderToStaticMarkup(<McpServersPanel servers={[s]} onRefreshed={() => {}} />);
    expect(html).toContain("delete[U+202E]fdp.txt");
    expect(html).not.toContain("\u202e");
  });
});
