/**
 * The one reducer for a conversation: server state (detail) plus stream events.
 *
 * State is normalised: messages in order, tool calls by id (each knows its message_id),
 * and one streaming draft per run. Events are applied at most once: anything with
 * seq <= lastSeq is a replay and is ignored.
 */
import { isWaiting } from "./waiting";
import type {
  ApiErrorBody,
  ConversationDetail,
  ConversationStatus,
  MessageId,
  MessageOut,
  ModelInfo,
  StreamEvent,
  ToolCallOut,
} from "../api/types";

export interface RunError {
  runId: string | null;
  error: ApiErrorBody;
}

export interface ConversationState {
  id: string | null;
  title: string | null;
  employee: string | null;
  /** `mcp`: the record of calls MCP clients made through the employee (no chat in it). */
  channel: "chat" | "mcp";
  model: ModelInfo | null;
  status: ConversationStatus;
  /** Messages in order, without their embedded tool_calls (see toolCalls). */
  messages: MessageOut[];
  /** Every tool call by id. */
  toolCalls: Record<string, ToolCallOut>;
  /** Assistant text streamed so far, by run id, until its message is stored. */
  drafts: Record<string, string>;
  /** Runs that reached a terminal event (so a late 202 does not mark them running). */
  finishedRuns: Record<string, true>;
  /** Runs the person stopped (run.cancelled): their partial reply is marked "stopped". */
  stoppedRuns: Record<string, true>;
  /** Runs cut short because the server stopped (run.failed `server_restarted`): their partial
   * reply is marked as cut off. */
  restartedRuns: Record<string, true>;
  /** The run going now (run.started or the POST /messages answer), null when none. */
  activeRunId: string | null;
  lastSeq: number;
  runError: RunError | null;
  /** The conversation was deleted (its stream said so, or a reconnect found it gone). */
  deleted: boolean;
}

export type Action =
  | { type: "reset"; detail: ConversationDetail }
  | { type: "event"; event: StreamEvent }
  /** The POST /messages answer: the run is going (unless its end was already seen). */
  | { type: "local.sent"; runId: string }
  /** A tool call returned by the decision POST. */
  | { type: "local.toolCall"; toolCall: ToolCallOut }
  /** Waiting calls read again (GET /pending): their cards' sentences as things are now. */
  | { type: "local.cards"; toolCalls: ToolCallOut[] }
  | { type: "local.dismissError" }
  /** The stream's reconnect found the conversation gone (404): it was deleted meanwhile. */
  | { type: "local.deleted" };

export const initialState: ConversationState = {
  id: null,
  title: null,
  employee: null,
  channel: "chat",
  model: null,
  status: "idle",
  messages: [],
  toolCalls: {},
  drafts: {},
  finishedRuns: {},
  stoppedRuns: {},
  restartedRuns: {},
  activeRunId: null,
  lastSeq: 0,
  runError: null,
  deleted: false,
};

export function stateFromDetail(detail: ConversationDetail, prev?: ConversationState): ConversationState {
  const toolCalls: Record<string, ToolCallOut> = {};
  const messages = detail.messages.map((m) => {
    for (const tc of m.tool_calls ?? []) toolCalls[tc.id] = tc;
    return stripToolCalls(m);
  });
  const sameConversation = prev?.id === detail.id;
  return {
    id: detail.id,
    title: detail.title,
    employee: detail.employee,
    channel: detail.channel ?? "chat",
    model: detail.model,
    status: detail.status,
    messages,
    toolCalls,
    // A draft survives a refresh only while a run is still streaming.
    drafts: sameConversation && detail.status === "running" ? prev.drafts : {},
    finishedRuns: sameConversation ? prev.finishedRuns : {},
    stoppedRuns: { ...(sameConversation ? prev.stoppedRuns : {}), ...flags(detail.stopped_runs ?? []) },
    restartedRuns: { ...(sameConversation ? prev.restartedRuns : {}), ...flags(detail.restarted_runs ?? []) },
    activeRunId: sameConversation && detail.status === "running" ? prev.activeRunId : null,
    lastSeq: sameConversation ? Math.max(prev.lastSeq, detail.last_event_seq) : detail.last_event_seq,
    runError: sameConversation ? prev.runError : null,
    deleted: false,
  };
}

/**
 * The seq to open a just-loaded conversation's stream after: where the reply being written now
 * starts, so its text so far comes again and shows whole (not only what is written from now
 * on). What was stored since the detail was read comes too, and is applied once (messages and
 * calls by id, the draft ended by its stored message).
 */
export function streamStart(detail: ConversationDetail): number {
  return Math.min(detail.draft_after_seq ?? detail.last_event_seq, detail.last_event_seq);
}

export function reducer(state: ConversationState, action: Action): ConversationState {
  switch (action.type) {
    case "reset":
      return stateFromDetail(action.detail, state);
    case "event":
      if (action.event.seq <= state.lastSeq) return state; // replay: already applied
      return { ...applyEvent(state, action.event), lastSeq: action.event.seq };
    case "local.sent":
      if (state.finishedRuns[action.runId]) return state;
      return { ...state, status: "running", activeRunId: action.runId, runError: null };
    case "local.toolCall": {
      // The POST answer can be older than what the stream already delivered.
      const known = state.toolCalls[action.toolCall.id];
      if (known && isNewer(known, action.toolCall)) return state;
      return upsertToolCall(state, action.toolCall);
    }
    case "local.cards":
      return currentCards(state, action.toolCalls);
    case "local.dismissError":
      return { ...state, runError: null };
    case "local.deleted":
      return markDeleted(state);
  }
}

function applyEvent(state: ConversationState, event: StreamEvent): ConversationState {
  switch (event.type) {
    case "run.started":
      return { ...state, status: "running", activeRunId: event.run_id, runError: null };
    case "message.delta": {
      const key = event.run_id ?? "";
      return { ...state, drafts: { ...state.drafts, [key]: (state.drafts[key] ?? "") + event.delta } };
    }
    case "message.completed":
      return upsertMessage(state, event.message);
    case "tool_call.created":
    case "tool_call.interrupted":
    case "tool_call.decided":
    case "tool_call.approved":
    case "tool_call.running":
    case "tool_call.awaiting_client":
    case "tool_call.finished_late":
      return upsertToolCall(state, event.tool_call);
    case "tool_call.completed": {
      const next = upsertToolCall(state, event.tool_call);
      return event.message ? upsertMessage(next, event.message) : next;
    }
    case "run.paused":
      return endRun(state, event.run_id, "paused");
    case "run.completed":
      return endRun(state, event.run_id, "idle");
    case "run.cancelled": {
      const ended = endRun(state, event.run_id, "idle");
      return event.run_id ? { ...ended, stoppedRuns: { ...ended.stoppedRuns, [event.run_id]: true } } : ended;
    }
    case "run.failed": {
      const ended = { ...endRun(state, event.run_id, "idle"), runError: { runId: event.run_id, error: event.error } };
      if (event.run_id == null || event.error.code !== SERVER_RESTARTED) return ended;
      return { ...ended, restartedRuns: { ...ended.restartedRuns, [event.run_id]: true } };
    }
    case "conversation.deleted":
      return markDeleted(state);
  }
}

/** Gone for good: nothing runs, nothing waits (its calls no longer exist on the server). */
function markDeleted(state: ConversationState): ConversationState {
  return { ...state, deleted: true, status: "idle", activeRunId: null, drafts: {}, runError: null };
}

function upsertMessage(state: ConversationState, message: MessageOut): ConversationState {
  // Tool calls embedded in a message are a snapshot from when it was stored: they add
  // calls not seen yet but never overwrite a newer state from a tool_call.* event.
  let toolCalls = state.toolCalls;
  for (const tc of message.tool_calls ?? []) {
    if (!toolCalls[tc.id]) toolCalls = { ...toolCalls, [tc.id]: tc };
  }
  const stripped = stripToolCalls(message);
  const idx = state.messages.findIndex((m) => sameId(m.id, message.id));
  const messages =
    idx >= 0
      ? state.messages.map((m, i) => (i === idx ? stripped : m))
      : [...state.messages, stripped];
  let drafts = state.drafts;
  if (message.role === "assistant" && message.run_id != null && message.run_id in drafts) {
    drafts = { ...drafts };
    delete drafts[message.run_id];
  }
  return { ...state, messages, toolCalls, drafts };
}

/** A card still waiting for a decision (its sentence is described again when read). */
export function waitingCard(tc: ToolCallOut): boolean {
  return tc.status === "interrupted" && tc.decision == null && tc.confirmation != null;
}

/**
 * Takes the current sentence (`confirmation`) of each card that still waits, here and in the
 * answer; nothing else of the call, which the stream may already have moved on.
 */
function currentCards(state: ConversationState, fresh: ToolCallOut[]): ConversationState {
  let toolCalls: Record<string, ToolCallOut> | null = null;
  for (const tc of fresh) {
    const known = state.toolCalls[tc.id];
    if (!known || !waitingCard(known) || !waitingCard(tc)) continue;
    if (JSON.stringify(known.confirmation) === JSON.stringify(tc.confirmation)) continue;
    toolCalls = toolCalls ?? { ...state.toolCalls };
    toolCalls[tc.id] = { ...known, confirmation: tc.confirmation };
  }
  return toolCalls ? { ...state, toolCalls } : state;
}

function upsertToolCall(state: ConversationState, toolCall: ToolCallOut): ConversationState {
  return { ...state, toolCalls: { ...state.toolCalls, [toolCall.id]: toolCall } };
}

const STATUS_RANK: Record<string, number> = { pending: 0, interrupted: 1, awaiting_client: 2, running: 2 };
const rank = (tc: ToolCallOut) => STATUS_RANK[tc.status] ?? 3;

/** True when `a` is a later state of the call than `b`. */
function isNewer(a: ToolCallOut, b: ToolCallOut): boolean {
  if (rank(a) !== rank(b)) return rank(a) > rank(b);
  // A stopped call's real outcome, come after it was stopped, is later than the stop.
  if ((a.finished_late_at != null) !== (b.finished_late_at != null)) return a.finished_late_at != null;
  return a.decision != null && b.decision == null;
}

function endRun(state: ConversationState, runId: string | null, status: ConversationStatus): ConversationState {
  const drafts = { ...state.drafts };
  const finishedRuns = { ...state.finishedRuns };
  if (runId != null) {
    delete drafts[runId];
    finishedRuns[runId] = true;
  }
  const activeRunId = state.activeRunId === runId ? null : state.activeRunId;
  return { ...state, status, drafts, finishedRuns, activeRunId };
}

function flags(ids: string[]): Record<string, true> {
  const out: Record<string, true> = {};
  for (const id of ids) out[id] = true;
  return out;
}

function stripToolCalls(m: MessageOut): MessageOut {
  return { ...m, tool_calls: [] };
}

export function sameId(a: MessageId, b: MessageId): boolean {
  return String(a) === String(b);
}

// ---------------------------------------------------------------------------
// Selectors

/** Tool calls of one message, oldest first. */
export function toolCallsOf(state: ConversationState, messageId: MessageId): ToolCallOut[] {
  return Object.values(state.toolCalls)
    .filter((tc) => sameId(tc.message_id, messageId))
    .sort(byCreated);
}

/** Tool calls whose assistant message has not arrived yet. */
export function orphanToolCalls(state: ConversationState): ToolCallOut[] {
  const ids = new Set(state.messages.map((m) => String(m.id)));
  return Object.values(state.toolCalls)
    .filter((tc) => !ids.has(String(tc.message_id)))
    .sort(byCreated);
}

/** Tool messages by the tool call they answer (they are shown in the call's row). */
export function toolMessagesByCall(state: ConversationState): Record<string, MessageOut> {
  const out: Record<string, MessageOut> = {};
  for (const m of state.messages) if (m.role === "tool" && m.tool_call_id) out[m.tool_call_id] = m;
  return out;
}

export { isWaiting } from "./waiting";

/** Calls waiting for the person reading them, oldest first (the order they were proposed in). */
export function waitingCalls(state: ConversationState): ToolCallOut[] {
  if (state.deleted) return [];
  return Object.values(state.toolCalls).filter(isWaiting).sort(byCreated);
}

/** Every tool call of the conversation, oldest first (the operation log). */
export function allToolCalls(state: ConversationState): ToolCallOut[] {
  return Object.values(state.toolCalls).sort(byCreated);
}

/**
 * The run is going but nothing shows yet: no streamed text, no call running or waiting.
 * That is when the "thinking" indicator shows.
 */
export function isThinking(state: ConversationState): boolean {
  if (state.status !== "running") return false;
  if (Object.values(state.drafts).some((text) => text.length > 0)) return false;
  return !Object.values(state.toolCalls).some((c) => c.status === "running" || c.status === "pending");
}

/** The `run.failed` code of a run cut short because the server stopped. */
export const SERVER_RESTARTED = "server_restarted";

/** How an assistant message was cut short: its run stopped by the person, or by the server
 * stopping; null for a reply that ended by itself. */
export function cutShort(state: ConversationState, message: MessageOut): "stopped" | "restarted" | null {
  if (message.role !== "assistant" || message.run_id == null) return null;
  if (state.stoppedRuns[message.run_id]) return "stopped";
  if (state.restartedRuns[message.run_id]) return "restarted";
  return null;
}

function byCreated(a: ToolCallOut, b: ToolCallOut): number {
  return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0;
}
