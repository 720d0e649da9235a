/**
 * Words and the client configuration for "Connect an MCP client" (see McpTokensSection).
 */
import type { McpTokenOut } from "../api/types";
import { when } from "../permissions/describe";

/** The `mcpServers` configuration most desktop MCP clients read, as pretty JSON. */
export function mcpSnippet(origin: string, employee: string, token: string): string {
  const url = `${origin.replace(/\/+$/, "")}/mcp?employee=${encodeURIComponent(employee)}`;
  const config = {
    mcpServers: {
      interlock: { type: "http", url, headers: { Authorization: `Bearer ${token}` } },
    },
  };
  return JSON.stringify(config, null, 2);
}

/** "Never used" or "Last used today 10:04". */
export function lastUsedText(token: McpTokenOut, now: Date = new Date()): string {
  return token.last_used_at ? `Last used ${when(token.last_used_at, now)}` : "Never used";
}

/** "Works" or "Revoked today 10:04". */
export function statusText(token: McpTokenOut, now: Date = new Date()): string {
  return token.revoked_at ? `Revoked ${when(token.revoked_at, now)}` : "Works";
}
