import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { McpTokenCreated, McpTokenOut } from "../api/types";
import { CreatedToken } from "./McpTokensSection";
import { lastUsedText, mcpSnippet, statusText } from "./describe";

function token(over: Partial<McpTokenOut> = {}): McpTokenOut {
  return {
    id: "tok_1",
    name: "Claude Desktop",
    scope: "mcp",
    created_at: "2026-12-01T10:00:00Z",
    last_used_at: null,
    revoked_at: null,
    ...over,
  };
}

describe("MCP client configuration", () => {
  it("names the /mcp URL with the employee and the token as a bearer header", () => {
    const parsed = JSON.parse(mcpSnippet("http://127.0.0.1:8000/", "ops team", "ilk_mcp_abc"));
    expect(parsed).toEqual({
      mcpServers: {
        interlock: {
          type: "http",
          url: "http://127.0.0.1:8000/mcp?employee=ops%20team",
          headers: { Authorization: "Bearer ilk_mcp_abc" },
        },
      },
    });
  });

  it("shows the new token once, inside the snippet, with a copy button", () => {
    const created: McpTokenCreated = { ...token(), token: "ilk_mcp_secret" };
    const html = renderToStaticMarkup(
      <CreatedToken token={created} employee="assistant" onDone={() => {}} origin="http://localhost:8000" />,
    );
    expect(html).toContain("shown only this once");
    expect(html).toContain("Bearer ilk_mcp_secret");
    expect(html).toContain("http://localhost:8000/mcp?employee=assistant");
    expect(html).toContain("Copy configuration");
    expect(html.split("ilk_mcp_secret")).toHaveLength(2);
  });

  it("shows a name's bidi override as [U+202E] instead of obeying it", () => {
    const created: McpTokenCreated = { ...token({ name: "a\u202eb" }), token: "ilk_mcp_secret" };
    const html = renderToStaticMarkup(
      <CreatedToken token={created} employee="assistant" onDone={() => {}} origin="http://localhost:8000" />,
    );
    expect(html).toContain("The token for “a[U+202E]b”");
    expect(html).not.toContain("\u202e");
  });
});

describe("MCP token words", () => {
  const now = new Date("2026-12-01T12:00:00Z");
  it("says when a token was last used", () => {
    expect(lastUsedText(token(), now)).toBe("Never used");
    expect(lastUsedText(token({ last_used_at: "2026-12-01T11:00:00Z" }), now)).toMatch(/^Last used today /);
  });

  it("says whether it still works", () => {
    expect(statusText(token(), now)).toBe("Works");
    expect(statusText(token({ revoked_at: "2026-12-01T11:30:00Z" }), now)).toMatch(/^Revoked today /);
  });
});
