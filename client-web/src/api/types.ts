/**
 * Every type the client shares with the server, in one module.
 *
 * The HTTP shapes and the SSE events come from the server's OpenAPI document:
 * `npm run gen:api` writes ./openapi.json (`interlock openapi`) and ./schema.d.ts
 * (openapi-typescript); both are committed, so building needs no Python, and
 * `npm run check:api` / tests/api/test_openapi_types.py fail when they are stale.
 *
 * Where the server is looser than the client needs (`status: str`, `args: Any`), a type
 * here narrows a generated one with `Narrow`, which only compiles when each narrowed field
 * is assignable to the generated field. Only the error body is hand-written: the error
 * handlers' `{"error": {...}}` is not in the OpenAPI document. The rest of the app imports
 * only from this module.
 */
import type { components, paths } from "./schema";

type S = components["schemas"];

/** Field types of `U` checked against `T`: each must be assignable to the generated field. */
type FieldsOf<T, U> = { [K in keyof U]: K extends keyof T ? T[K] : never };
/** Field names of `U` checked against `T` (for nested types that are checked themselves). */
type NamesOf<T, U> = { [K in keyof U]: K extends keyof T ? unknown : never };

/** `T` with the fields of `U` narrowed (checked: each narrows the generated field). */
type Narrow<T, U extends FieldsOf<T, U>> = Omit<T, keyof U> & U;
/** `T` with the fields of `U` replaced by this module's own (already checked) types. */
type Replace<T, U extends NamesOf<T, U>> = Omit<T, keyof U> & U;

/** Every field present: events are sent with `model_dump_json()`, defaults included. */
type Sent<T> = { [K in keyof T]-?: T[K] };

/** `T` with the fields `K` made optional (a looser reading of what the server sends). */
type Optional<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;

// ---------------------------------------------------------------------------
// Scalars

export type ConversationStatus = S["ConversationSummary"]["status"];
export type Role = S["MessageOut"]["role"];
/** The server sends `status: str`; these are the values of its `ToolCallStatus` enum. */
export type ToolCallStatus =
  | "pending"
  | "interrupted"
  | "running"
  | "succeeded"
  | "failed"
  | "rejected"
  | "cancelled"
  /** A frontend call waiting for the browser's result (issue 6). */
  | "awaiting_client"
  /** A waiting call that timed out (issue 8). */
  | "expired";
export type DecisionType = S["DecisionOut"]["type"];
export type Permission = "ALLOW" | "ASK" | (string & {});
/** What an employee may set per tool (`tool_overrides`); no entry = the tool's own permission. */
export type ToolPermission = "ALLOW" | "ASK" | "DENY";
/** The built-in cards a tool can ask for (`card` in GET /api/tools, `cards:` in SKILL.md). */
export type CardHint = "approval" | "choice" | "form" | "confirm" | "markdown";
/** Message ids are integers on the wire; compare them through `String(id)` (strings pass too). */
export type MessageId = S["MessageOut"]["id"] | string;

export type JsonObject = { [key: string]: unknown };

// ---------------------------------------------------------------------------
// Errors (hand-written: not described by the OpenAPI document)

export type ApiErrorBody = {
  code: string;
  message: string;
  details?: unknown;
};

/** `{"error": {...}}`, the one error shape for HTTP answers and `run.failed` events. */
export interface ErrorEnvelope {
  error: ApiErrorBody;
}

/** One entry of `details.candidates` on a 422 `slash_command_ambiguous`. */
export interface SlashCandidate {
  skill: string;
  command: string;
  title: string;
}

/** One entry of `details.errors` on a 422 `invalid_args`; `path` is a list of keys and indexes ([] = root). */
export interface FieldError {
  path: Array<string | number> | string;
  message: string;
  rule: string;
}

// ---------------------------------------------------------------------------
// HTTP

export type ModelInfo = S["ModelInfo"];
export type HealthOut = S["HealthOut"];
export type MeOut = S["MeOut"];
export type EmployeeOut = Narrow<S["EmployeeOut"], { tool_overrides: Record<string, ToolPermission> }>;
/** The fields an admin sets (POST /api/employees without `slug`; PATCH takes any subset). */
export type EmployeeFields = Omit<S["EmployeeCreate"], "slug">;
export type EmployeeCreate = S["EmployeeCreate"];
export type EmployeePatch = Partial<EmployeeFields>;
export type SlashCommandOut = S["SlashCommandOut"];
export type SkillOut = S["SkillOut"];
/** A remote MCP server (admins): its state and the tools it lists. */
export type McpServerOut = S["McpServerOut"];
export type RemoteToolOut = S["RemoteToolOut"];
export type CommandClaim = S["CommandClaim"];
export type MessageCreate = S["MessageCreate"];
export type ToolAnnotationsOut = S["ToolAnnotationsOut"];
export type ToolOut = Narrow<S["ToolOut"], { permission: Permission }>;
/** `pending`: calls waiting for the caller (issue 6; optional until every server sends it). */
export type ConversationSummary = S["ConversationSummary"] & { pending?: number };
/** PATCH /api/conversations/{id}. */
export interface ConversationPatch {
  title: string;
}

/** How a call's confirmation reads (computed by the tool on the server; issue 6). */
export interface ConfirmationOut {
  title: string;
  /** One sentence in the person's terms ("Delete note #2: “buy milk”"). */
  summary: string;
  /** Replaces "Approve" on the action button ("Delete"). */
  action_label: string;
  /** Long content shown on demand (plain text, or Markdown for document tools). */
  detail: string | null;
  /** The stored text the change replaces (for a diff); null when nothing is replaced. */
  previous: string | null;
}

/**
 * Fields the issue 6 contract adds to ToolCallOut. Optional here so the client builds both
 * before and after the server's generated types carry them (an intersection with the
 * generated, required field stays required).
 */
export interface ToolCallExtras {
  confirmation?: ConfirmationOut | null;
  write?: boolean;
  destructive?: boolean;
  execution?: "server" | "frontend";
  modal?: boolean;
  /** Length of the tool's whole text output before it was cut. */
  result_chars?: number | null;
  result_cut?: boolean;
}

export type DecisionOut = Narrow<
  S["DecisionOut"],
  { args: JsonObject | null; proposed_args: JsonObject | null }
> & { /** Who decided (issue 6). */ user_name?: string };

export type ToolCallOut = Narrow<
  S["ToolCallOut"],
  {
    permission: Permission;
    status: ToolCallStatus;
    proposed_args: JsonObject | null;
    executed_args: JsonObject | null;
    decision: DecisionOut | null;
  }
> &
  ToolCallExtras;

/** The body of POST /api/tool-calls/{id}/result: a frontend tool's result or its error. */
export type ToolResultIn = { text: string; data?: unknown } | { error: { code: string; message: string } };

/** `tool_call_id` and `tool_status` are always sent but only tool messages need them. */
export type MessageOut = Narrow<
  Optional<S["MessageOut"], "tool_call_id" | "tool_status">,
  { tool_calls: ToolCallOut[] }
>;

export type ConversationDetail = Replace<S["ConversationDetail"], { messages: MessageOut[] }>;

/**
 * One entry of GET /api/approvals: a call waiting for the caller and its conversation.
 * `role: "approver"` entries wait in someone else's conversation (the caller is one of the
 * employee's approvers): they carry the owner's name and the message that proposed the call,
 * and the conversation itself cannot be opened.
 */
export interface ApprovalOut {
  tool_call: ToolCallOut;
  conversation: ConversationSummary;
  role?: "owner" | "approver";
  requested_by?: string | null;
  message?: string | null;
}

export type MessageAccepted = S["MessageAccepted"];
/** A live "don't ask again" grant (GET /api/grants). */
export type GrantOut = S["GrantOut"];
export type GrantIn = S["GrantIn"];
/** A person's MCP token (never the token itself, except once in `McpTokenCreated`). */
export type McpTokenOut = S["TokenOut"];
export type McpTokenCreated = S["TokenCreatedOut"];
export type McpTokenIn = S["TokenIn"];
/** One employee's "AI actions" switch for the caller (GET /api/actions). */
export type ActionsOut = S["ActionsOut"];
export type CancelResult = S["CancelResult"];

/** Each variant must be a valid generated `DecisionIn` body. */
type CheckedDecision<T extends S["DecisionIn"]> = T;
/** "Don't ask again" on an approve or edit (never on a reject or respond). */
export type RememberIn = S["RememberIn"];
export type DecisionIn = CheckedDecision<
  | { type: "approve"; remember?: RememberIn }
  | { type: "edit"; args: JsonObject; remember?: RememberIn }
  | { type: "reject"; message?: string }
  | { type: "respond"; message: string }
>;

// ---------------------------------------------------------------------------
// SSE events (GET /api/conversations/{id}/events). Every data object carries
// `type`, `seq` (per conversation, 1, 2, 3, ...) and `run_id`.

/** The union the server documents for the stream's `data`. */
type WireStreamEvent =
  paths["/api/conversations/{conversation_id}/events"]["get"]["responses"][200]["content"]["text/event-stream"];

export type RunStarted = Sent<S["RunStarted"]>;
export type MessageDelta = Sent<S["MessageDelta"]>;
export type MessageCompleted = Replace<Sent<S["MessageCompleted"]>, { message: MessageOut }>;
export type ToolCallCreated = Narrow<Sent<S["ToolCallCreated"]>, { tool_call: ToolCallOut }>;
export type ToolCallInterrupted = Narrow<Sent<S["ToolCallInterrupted"]>, { tool_call: ToolCallOut }>;
export type ToolCallDecided = Narrow<Sent<S["ToolCallDecided"]>, { tool_call: ToolCallOut }>;
/** One approval of a call that needs several; `tool_call.approvals` lists who so far. */
export type ToolCallApproved = Narrow<Sent<S["ToolCallApproved"]>, { tool_call: ToolCallOut }>;
export type ToolCallRunning = Narrow<Sent<S["ToolCallRunning"]>, { tool_call: ToolCallOut }>;
export type ToolCallAwaitingClient = Narrow<Sent<S["ToolCallAwaitingClient"]>, { tool_call: ToolCallOut }>;
/** A call stopped ("May have happened") or timed out while its tool ran, whose tool returned after all: its real outcome (`finished_late_at` set; `finished_late_after` says which). */
export type ToolCallFinishedLate = Narrow<Sent<S["ToolCallFinishedLate"]>, { tool_call: ToolCallOut }>;
export type ToolCallEvent =
  | ToolCallCreated
  | ToolCallInterrupted
  | ToolCallDecided
  | ToolCallApproved
  | ToolCallRunning
  | ToolCallAwaitingClient
  | ToolCallFinishedLate;
/** May carry the tool message written for the call. */
export type ToolCallCompleted = Replace<
  Sent<S["ToolCallCompleted"]>,
  { tool_call: ToolCallOut; message: MessageOut | null }
>;
export type RunPaused = Sent<S["RunPaused"]>;
export type RunCompleted = Sent<S["RunCompleted"]>;
export type RunFailed = Narrow<Sent<S["RunFailed"]>, { error: ApiErrorBody }>;
export type RunCancelled = Sent<S["RunCancelled"]>;
/** The conversation was deleted (here or in another tab): the stream's last event. */
export type ConversationDeleted = Sent<S["ConversationDeleted"]>;

export type StreamEvent =
  | RunStarted
  | MessageDelta
  | MessageCompleted
  | ToolCallEvent
  | ToolCallCompleted
  | RunPaused
  | RunCompleted
  | RunFailed
  | RunCancelled
  | ConversationDeleted;

export type StreamEventType = StreamEvent["type"];

/**
 * One key per event type the server documents: a new server event fails to compile here
 * (missing key) until it is added, and it must be in `StreamEvent` too (else `never`).
 */
const EVENT_TYPES: { [K in WireStreamEvent["type"]]: K extends StreamEventType ? true : never } = {
  "run.started": true,
  "message.delta": true,
  "message.completed": true,
  "tool_call.created": true,
  "tool_call.interrupted": true,
  "tool_call.decided": true,
  "tool_call.approved": true,
  "tool_call.running": true,
  "tool_call.awaiting_client": true,
  "tool_call.completed": true,
  "tool_call.finished_late": true,
  "run.paused": true,
  "run.completed": true,
  "run.failed": true,
  "run.cancelled": true,
  "conversation.deleted": true,
};

export const STREAM_EVENT_TYPES: readonly StreamEventType[] = Object.keys(
  EVENT_TYPES,
) as StreamEventType[];

// ---------------------------------------------------------------------------
// Audit log and metrics (issue 8)

export type AuditRecordOut = S["AuditRecordOut"];
export type AuditPage = S["AuditPage"];
export type ToolMetrics = S["ToolMetrics"];
export type ToolMetricsReport = S["ToolMetricsReport"];
/** The audit log's outcome values (GET /api/audit?outcome=...). */
export type AuditOutcome = NonNullable<
  NonNullable<paths["/api/audit"]["get"]["parameters"]["query"]>["outcome"]
>;
/** Filters of GET /api/audit and its CSV export; empty fields do not filter. */
export interface AuditQuery {
  tool?: string;
  employee?: string;
  user?: string;
  outcome?: AuditOutcome | "";
  since?: string;
  until?: string;
}
