/** What a module outside the built-in cards needs to add its own card or frontend tool. */
export { registerTool, cardFor, invokerFor, type ToolUi } from "./registry";
export type { CardComponent, CardProps } from "./types";
export { ToolInvokeError, type Invoke, type InvokeContext, type InvokeResult } from "./frontend/types";
export { ToolCardHeader } from "./ToolCardHeader";
export { ArgFields } from "./fields/ArgFields";
export { DecisionSummary } from "./DecisionSummary";
export { reveal } from "./reveal";
