import type { ConversationDetail, MessageOut, StreamEvent, ToolCallOut } from "../api/types";
import type { CardProps } from "../cards/types";

export const T0 = "2025-01-01T00:00:00Z";

export function toolCall(over: Partial<ToolCallOut> = {}): ToolCallOut {
  return {
    id: "call_1",
    message_id: 2,
    run_id: "run_1",
    name: "notes.add",
    title: "Add a note",
    card: null,
    permission: "ASK",
    status: "pending",
    write: true,
    destructive: false,
    execution: "server",
    modal: false,
    confirmation: null,
    proposed_args: { text: "hi" },
    executed_args: null,
    raw_args: null,
    result_text: null,
    result_data: null,
    result_chars: null,
    result_cut: false,
    error: null,
    decision: null,
    grant_id: null,
    created_at: T0,
    started_at: null,
    finished_at: null,
    expires_at: null,
    approvals_required: 1,
    require_approver: false,
    approvals: [],
    undo: null,
    client_name: null,
    finished_late_at: null,
    finished_late_after: null,
    ...over,
    // As the server says it to the call's owner, unless the test says otherwise.
    waiting_for: over.waiting_for !== undefined ? over.waiting_for : ownerWaitingFor(over),
  };
}

function ownerWaitingFor(over: Partial<ToolCallOut>): ToolCallOut["waiting_for"] {
  const status = over.status ?? "pending";
  if (status === "awaiting_client") return "you";
  if (status !== "interrupted" || over.decision != null) return null;
  return over.require_approver ? "approvers" : "you";
}

export function message(over: Partial<MessageOut> = {}): MessageOut {
  return { id: 1, role: "user", content: "hello", run_id: "run_1", created_at: T0, tool_calls: [], ...over };
}

export function detail(over: Partial<ConversationDetail> = {}): ConversationDetail {
  return {
    id: "conv_1",
    title: "New conversation",
    employee: "assistant",
    status: "idle",
    pending: 0,
    channel: "chat",
    created_at: T0,
    updated_at: T0,
    model: { name: "offline", offline: true },
    last_event_seq: 0,
    messages: [],
    ...over,
    // Nothing streaming: the stream goes on after the last event.
    draft_after_seq: over.draft_after_seq ?? over.last_event_seq ?? 0,
  };
}

/** Builds events with increasing seq numbers. */
export function sequence(start = 1) {
  let seq = start;
  return <E extends Omit<StreamEvent, "seq">>(e: E) => ({ ...e, seq: seq++ }) as unknown as StreamEvent;
}

/** A card's props: a waiting `notes.add` call titled "Add a note", live, whose decide succeeds. */
export function cardProps(over: Partial<CardProps> = {}): CardProps {
  return { call: toolCall({ status: "interrupted" }), tool: undefined, title: "Add a note", live: true, busy: false, decide: async () => null, ...over };
}
