/**
 * A `load_skill` call in the person's words. Its result text is the skill's instructions for
 * the model, which are never shown to the person: they read which tools the skill brought.
 */
import type { ToolCallOut, ToolOut } from "../api/types";
import { toolTitle } from "./appData";

/** The server's built-in tool that gives the model a skill's instructions and tools. */
export const LOAD_SKILL = "load_skill";

/** "Now available: List documents, Save a document." ("No new tools." when it brought none). */
export function skillLoadedText(call: Pick<ToolCallOut, "result_data">, tools: Record<string, ToolOut>): string {
  const data = call.result_data as { tools?: unknown } | null | undefined;
  const names = Array.isArray(data?.tools) ? data.tools.filter((n): n is string => typeof n === "string") : [];
  return names.length ? `Now available: ${names.map((n) => toolTitle(tools, n)).join(", ")}.` : "No new tools.";
}
