/**
 * A `load_skill` call in the person's words. Its result text is the skill's instructions for
 * the model, which are never shown to the person: they read which tools the skill brought.
 */
import type { ToolCallOut, ToolOut } from "../api/types";
import { toolTitle } from "./appData";

/** The server's built-in tool that gives the model a skill's instructions and tools. */
export const LOAD_SKILL = "load_skill";

/**
 * "Now available: List documents, Save a document." ("No new tools." when it brought none),
 * then each of its tools that could not run when it was loaded, with why: "Not available right
 * now: Search the docs (The MCP server 'docs' is not available: …)". A tool the tool list
 * marks unavailable counts as such too (an older result has no `unavailable`).
 */
export function skillLoadedText(call: Pick<ToolCallOut, "result_data">, tools: Record<string, ToolOut>): string {
  const data = call.result_data as { tools?: unknown; unavailable?: unknown } | null | undefined;
  const named = Array.isArray(data?.tools) ? data.tools.filter((n): n is string => typeof n === "string") : [];
  const said = data?.unavailable && typeof data.unavailable === "object" ? (data.unavailable as Record<string, unknown>) : {};
  const down = new Map<string, string>();
  for (const [name, why] of Object.entries(said)) down.set(name, typeof why === "string" ? why : "");
  for (const name of named) {
    const tool = Object.hasOwn(tools, name) ? tools[name] : undefined;
    if (tool && tool.available === false && !down.has(name)) down.set(name, tool.reason ?? "");
  }
  const up = named.filter((n) => !down.has(n));
  const parts: string[] = [];
  if (up.length) parts.push(`Now available: ${up.map((n) => toolTitle(tools, n)).join(", ")}.`);
  else if (down.size === 0) parts.push("No new tools.");
  if (down.size) {
    const each = [...down].map(([n, why]) => (why.trim() ? `${toolTitle(tools, n)} (${stripStop(why.trim())})` : toolTitle(tools, n)));
    parts.push(`Not available right now: ${each.join("; ")}.`);
  }
  return parts.join(" ");
}

function stripStop(text: string): string {
  return text.replace(/[.!?]+$/, "");
}
