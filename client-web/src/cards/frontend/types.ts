/** What a frontend tool's `invoke` receives and returns (tools declared execution="frontend"). */
import type { JsonObject, ToolCallOut } from "../../api/types";

export interface InvokeContext {
  /** The call being run (its id, name, proposed and executed args, ...). */
  call: ToolCallOut;
}

/** A result: `text` is what the model reads; `data` must fit the tool's output_schema. */
export interface InvokeResult {
  text: string;
  data?: unknown;
}

/**
 * Runs a frontend tool in the person's browser. ALLOW calls get the proposed args at once;
 * ASK calls get the executed (possibly edited) args after the person's decision. Throw a
 * `ToolInvokeError` to fail the call with a tool error code; any other error fails it with
 * `failed`.
 */
export type Invoke = (args: JsonObject, context: InvokeContext) => InvokeResult | Promise<InvokeResult>;

/** The tool error codes the server accepts in a posted error. */
export type ToolErrorCode = "failed" | "timeout" | "internal" | "upstream_error" | "invalid_output" | "outcome_unknown";

export class ToolInvokeError extends Error {
  readonly code: ToolErrorCode;

  constructor(code: ToolErrorCode, message: string) {
    super(message);
    this.name = "ToolInvokeError";
    this.code = code;
  }
}
