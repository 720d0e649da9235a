/**
 * Runs frontend tool calls in this tab: when a call shows `awaiting_client` (at once for
 * ALLOW; after the decision for ASK, with the executed args), its registered `invoke` runs
 * and the result is posted to POST /api/tool-calls/{id}/result. Each call runs at most once
 * per tab; when two tabs both post, the second gets a 409, which is expected and silent.
 */
import { ApiError, api } from "../../api/client";
import type { JsonObject, ToolCallOut, ToolResultIn } from "../../api/types";
import { invokerFor } from "../registry";
import { ToolInvokeError, type Invoke } from "./types";

export type RunOutcome = "posted" | "already" | "skipped" | "error";

export interface RunDeps {
  invoker: (name: string) => Invoke | undefined;
  post: (id: string, body: ToolResultIn) => Promise<unknown>;
}

const defaults: RunDeps = { invoker: invokerFor, post: api.postResult };

/** Call ids this tab has started (so a re-render or a replayed event never runs one twice). */
const started = new Set<string>();

export function forgetStarted(): void {
  started.clear();
}

/** Whether this tab should run the call now. */
export function wantsRun(call: Pick<ToolCallOut, "status" | "execution">): boolean {
  return call.status === "awaiting_client" && call.execution !== "server";
}

function errorBody(code: string, message: string): ToolResultIn {
  return { error: { code, message } };
}

/** What invoke produced (or threw), as the body to post. */
export async function invokeToBody(call: ToolCallOut, invoke: Invoke | undefined): Promise<ToolResultIn> {
  if (!invoke) return errorBody("failed", `This browser cannot run the tool “${call.name}”.`);
  const args: JsonObject = call.executed_args ?? call.proposed_args ?? {};
  try {
    const result = await invoke(args, { call });
    if (!result || typeof result.text !== "string") return errorBody("invalid_output", "The tool gave no text result.");
    return result.data === undefined ? { text: result.text } : { text: result.text, data: result.data };
  } catch (e) {
    if (e instanceof ToolInvokeError) return errorBody(e.code, e.message);
    return errorBody("failed", e instanceof Error ? e.message : String(e));
  }
}

/**
 * Runs the call's invoke and posts the result, once per tab. A 409 (another tab posted, or
 * the call is no longer waiting) is "already"; a 422 `invalid_output` (data not fitting the
 * output schema) posts that as the call's error instead.
 */
export async function runFrontendCall(call: ToolCallOut, deps: RunDeps = defaults): Promise<RunOutcome> {
  if (!wantsRun(call) || started.has(call.id)) return "skipped";
  started.add(call.id);
  const body = await invokeToBody(call, deps.invoker(call.name));
  try {
    await deps.post(call.id, body);
    return "posted";
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) return "already";
    if (e instanceof ApiError && e.status === 422 && "text" in body) {
      try {
        await deps.post(call.id, errorBody("invalid_output", `The browser's result was refused: ${e.message}`));
        return "posted";
      } catch (again) {
        if (again instanceof ApiError && again.status === 409) return "already";
      }
    }
    if (e instanceof ApiError && e.status === 0) started.delete(call.id); // offline: try again later
    return "error";
  }
}
