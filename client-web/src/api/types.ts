/**
 * Every type the client shares with the server, in one module.
 *
 * Hand-written from docs/architecture.md, named after the server's OpenAPI components
 * (HealthOut, ToolOut, ConversationDetail, MessageOut, ToolCallOut, DecisionOut, ...).
 * To switch to generated types: `interlock openapi --out var/openapi.json`, then
 * `npm run gen:api` writes ./schema.d.ts, and each interface below becomes an alias:
 *
 *   import type { components } from "./schema";
 *   type S = components["schemas"];
 *   export type ConversationSummary = S["ConversationSummary"];
 *
 * (the generated ToolCallOut has `status: string` and `*_args: unknown`; keep the narrower
 * unions here by intersecting). The rest of the app imports only from this module, so the
 * swap touches one file. The SSE event types stay hand-written: the stream is not in OpenAPI.
 */

export type ConversationStatus = "idle" | "running" | "paused";
export type Role = "user" | "assistant" | "tool";
export type ToolCallStatus =
  | "pending"
  | "interrupted"
  | "running"
  | "succeeded"
  | "failed"
  | "rejected"
  | "cancelled";
export type DecisionType = "approve" | "edit" | "reject" | "respond";
export type Permission = "ALLOW" | "ASK" | (string & {});
/** Message ids are integers in storage; compare them through `String(id)`. */
export type MessageId = number | string;

export type JsonObject = { [key: string]: unknown };

export interface ApiErrorBody {
  code: string;
  message: string;
  details?: unknown;
}

/** `{"error": {...}}`, the one error shape for HTTP answers and `run.failed` events. */
export interface ErrorEnvelope {
  error: ApiErrorBody;
}

/** One entry of `details.errors` on a 422 `invalid_args`; `path` is a list of keys and indexes ([] = root). */
export interface FieldError {
  path: Array<string | number> | string;
  message: string;
  rule: string;
}

export interface ModelInfo {
  name: string;
  offline: boolean;
}

export interface HealthOut {
  status: string;
  version: string;
  model: ModelInfo;
}

export interface MeOut {
  id: string;
  name: string;
  role: string;
}

export interface EmployeeOut {
  slug: string;
  name: string;
  title: string;
  about: string;
  avatar: string | null;
  greeting: string | null;
  starter_prompts: string[];
}

export interface ToolAnnotationsOut {
  read_only: boolean;
  destructive: boolean;
  idempotent: boolean;
  open_world: boolean;
}

export interface ToolOut {
  name: string;
  title: string | null;
  description: string | null;
  input_schema: JsonObject;
  output_schema: JsonObject | null;
  permission: Permission;
  write: boolean;
  annotations: ToolAnnotationsOut;
  card: string | null;
}

export interface ConversationSummary {
  id: string;
  title: string | null;
  employee: string | null;
  status: ConversationStatus;
  created_at: string;
  updated_at: string;
}

export interface ConversationDetail extends ConversationSummary {
  model: ModelInfo;
  last_event_seq: number;
  messages: MessageOut[];
}

export interface DecisionOut {
  id: string;
  type: DecisionType;
  user_id: string;
  args: JsonObject | null;
  message: string | null;
  proposed_args: JsonObject | null;
  created_at: string;
}

export interface ToolCallOut {
  id: string;
  message_id: MessageId;
  run_id: string;
  name: string;
  title: string | null;
  card: string | null;
  permission: Permission;
  status: ToolCallStatus;
  proposed_args: JsonObject | null;
  executed_args: JsonObject | null;
  raw_args: string | null;
  result_text: string | null;
  result_data: unknown;
  error: { code: string; message: string } | null;
  decision: DecisionOut | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface MessageOut {
  id: MessageId;
  role: Role;
  content: string;
  run_id: string | null;
  created_at: string;
  tool_call_id?: string | null;
  tool_status?: string | null;
  tool_calls: ToolCallOut[];
}

export interface MessageAccepted {
  run_id: string;
  message_id: MessageId;
}

export type DecisionIn =
  | { type: "approve" }
  | { type: "edit"; args: JsonObject }
  | { type: "reject"; message?: string }
  | { type: "respond"; message: string };

export interface CancelResult {
  cancelled_run_id: string | null;
}

// ---------------------------------------------------------------------------
// SSE events (GET /api/conversations/{id}/events). Every data object carries
// `type`, `seq` (per conversation, 1, 2, 3, ...) and `run_id`.

interface EventBase {
  seq: number;
  run_id: string | null;
}

export type RunStarted = EventBase & { type: "run.started"; trigger: "message" | "resume" };
export type MessageDelta = EventBase & { type: "message.delta"; delta: string };
export type MessageCompleted = EventBase & { type: "message.completed"; message: MessageOut };
export type ToolCallEvent = EventBase & {
  type: "tool_call.created" | "tool_call.interrupted" | "tool_call.decided" | "tool_call.running";
  tool_call: ToolCallOut;
};
/** May carry the tool message written for the call. */
export type ToolCallCompleted = EventBase & {
  type: "tool_call.completed";
  tool_call: ToolCallOut;
  message?: MessageOut | null;
};
export type RunPaused = EventBase & { type: "run.paused"; pending: string[] };
export type RunCompleted = EventBase & { type: "run.completed" };
export type RunFailed = EventBase & { type: "run.failed"; error: ApiErrorBody };
export type RunCancelled = EventBase & { type: "run.cancelled"; reason: string | null };

export type StreamEvent =
  | RunStarted
  | MessageDelta
  | MessageCompleted
  | ToolCallEvent
  | ToolCallCompleted
  | RunPaused
  | RunCompleted
  | RunFailed
  | RunCancelled;

export type StreamEventType = StreamEvent["type"];

export const STREAM_EVENT_TYPES: readonly StreamEventType[] = [
  "run.started",
  "message.delta",
  "message.completed",
  "tool_call.created",
  "tool_call.interrupted",
  "tool_call.decided",
  "tool_call.running",
  "tool_call.completed",
  "run.paused",
  "run.completed",
  "run.failed",
  "run.cancelled",
];
