import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../api/types";
import { detail, message, sequence, toolCall } from "../test/fixtures";
import {
  initialState,
  cutShort,
  streamStart,
  isThinking,
  waitingCalls,
  orphanToolCalls,
  reducer,
  toolCallsOf,
  toolMessagesByCall,
  type Action,
  type ConversationState,
} from "./reducer";

const load = (d = detail()) => reducer(initialState, { type: "reset", detail: d });
const apply = (state: ConversationState, events: StreamEvent[]) =>
  events.reduce((s, event) => reducer(s, { type: "event", event } satisfies Action), state);

describe("reset", () => {
  it("normalises the detail: messages in order, tool calls by id", () => {
    const tc = toolCall({ status: "interrupted" });
    const s = load(
      detail({
        status: "paused",
        last_event_seq: 7,
        messages: [message(), message({ id: 2, role: "assistant", content: "", tool_calls: [tc] })],
      }),
    );
    expect(s.id).toBe("conv_1");
    expect(s.status).toBe("paused");
    expect(s.lastSeq).toBe(7);
    expect(s.messages.map((m) => m.id)).toEqual([1, 2]);
    expect(toolCallsOf(s, 2)).toEqual([tc]);
    expect(toolCallsOf(s, "2")).toEqual([tc]);
  });
});

describe("events", () => {
  it("accumulates deltas into a draft per run and clears it when the assistant message arrives", () => {
    const ev = sequence();
    let s = apply(load(), [
      ev({ type: "run.started", run_id: "run_1", trigger: "message" }),
      ev({ type: "message.completed", run_id: "run_1", message: message() }),
      ev({ type: "message.delta", run_id: "run_1", delta: "Hel" }),
      ev({ type: "message.delta", run_id: "run_1", delta: "lo" }),
    ]);
    expect(s.status).toBe("running");
    expect(s.drafts).toEqual({ run_1: "Hello" });
    s = apply(s, [
      ev({ type: "message.completed", run_id: "run_1", message: message({ id: 2, role: "assistant", content: "Hello" }) }),
    ]);
    expect(s.drafts).toEqual({});
    expect(s.messages.map((m) => [m.role, m.content])).toEqual([
      ["user", "hello"],
      ["assistant", "Hello"],
    ]);
    s = apply(s, [ev({ type: "run.completed", run_id: "run_1" })]);
    expect(s.status).toBe("idle");
    expect(s.lastSeq).toBe(6);
  });

  it("a user message does not clear the draft; drafts of two runs stay apart", () => {
    const ev = sequence();
    const s = apply(load(), [
      ev({ type: "message.delta", run_id: "run_1", delta: "a" }),
      ev({ type: "message.delta", run_id: "run_2", delta: "b" }),
      ev({ type: "message.completed", run_id: "run_1", message: message({ id: 9, role: "user" }) }),
    ]);
    expect(s.drafts).toEqual({ run_1: "a", run_2: "b" });
  });

  it("replaces a message with the same id instead of adding it", () => {
    const ev = sequence();
    const s = apply(load(), [
      ev({ type: "message.completed", run_id: "run_1", message: message({ content: "v1" }) }),
      ev({ type: "message.completed", run_id: "run_1", message: message({ content: "v2" }) }),
    ]);
    expect(s.messages).toHaveLength(1);
    expect(s.messages[0].content).toBe("v2");
  });

  it("upserts tool calls by id through their lifecycle", () => {
    const ev = sequence();
    const assistant = message({ id: 2, role: "assistant", content: "" });
    let s = apply(load(), [
      ev({ type: "run.started", run_id: "run_1", trigger: "message" }),
      ev({ type: "message.completed", run_id: "run_1", message: assistant }),
      ev({ type: "tool_call.created", run_id: "run_1", tool_call: toolCall() }),
      ev({ type: "tool_call.interrupted", run_id: "run_1", tool_call: toolCall({ status: "interrupted" }) }),
      ev({ type: "run.paused", run_id: "run_1", pending: ["call_1"] }),
    ]);
    expect(s.status).toBe("paused");
    expect(toolCallsOf(s, 2).map((c) => c.status)).toEqual(["interrupted"]);

    const decision = {
      id: "dec_1", type: "approve" as const, user_id: "user_local", user_name: "local", args: null, message: null,
      proposed_args: { text: "hi" }, created_at: "2025-01-01T00:00:01Z",
    };
    s = apply(s, [
      ev({ type: "tool_call.decided", run_id: "run_1", tool_call: toolCall({ status: "interrupted", decision }) }),
      ev({ type: "run.started", run_id: "run_2", trigger: "resume" }),
      ev({ type: "tool_call.running", run_id: "run_2", tool_call: toolCall({ status: "running", decision }) }),
      ev({
        type: "tool_call.completed",
        run_id: "run_2",
        tool_call: toolCall({ status: "succeeded", decision, executed_args: { text: "hi" }, result_text: "ok" }),
      }),
      ev({
        type: "message.completed",
        run_id: "run_2",
        message: message({ id: 3, role: "tool", content: "ok", tool_call_id: "call_1", tool_status: "success" }),
      }),
      ev({ type: "run.completed", run_id: "run_2" }),
    ]);
    const calls = toolCallsOf(s, 2);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ status: "succeeded", result_text: "ok", decision: { id: "dec_1" } });
    expect(toolMessagesByCall(s).call_1.content).toBe("ok");
    expect(s.status).toBe("idle");
  });

  it("keeps a newer tool call state over the snapshot embedded in a later message", () => {
    const ev = sequence();
    const s = apply(load(), [
      ev({ type: "tool_call.interrupted", run_id: "run_1", tool_call: toolCall({ status: "interrupted" }) }),
      ev({
        type: "message.completed",
        run_id: "run_1",
        message: message({ id: 2, role: "assistant", tool_calls: [toolCall({ status: "pending" })] }),
      }),
    ]);
    expect(s.toolCalls.call_1.status).toBe("interrupted");
  });

  it("stores the tool message carried by tool_call.completed", () => {
    const tm = message({ id: 5, role: "tool", content: "done", tool_call_id: "call_1", tool_status: "success" });
    const s = apply(load(), [
      { type: "tool_call.completed", run_id: "run_1", seq: 1, tool_call: toolCall({ status: "succeeded" }), message: tm },
      { type: "message.completed", run_id: "run_1", seq: 2, message: tm },
    ]);
    expect(s.messages).toHaveLength(1);
    expect(toolMessagesByCall(s).call_1.content).toBe("done");
  });

  it("shows tool calls whose message has not arrived yet as orphans", () => {
    const ev = sequence();
    const s = apply(load(), [ev({ type: "tool_call.created", run_id: "run_1", tool_call: toolCall() })]);
    expect(orphanToolCalls(s).map((c) => c.id)).toEqual(["call_1"]);
  });

  it("records run.failed errors and clears the run's draft", () => {
    const ev = sequence();
    const s = apply(load(), [
      ev({ type: "run.started", run_id: "run_1", trigger: "message" }),
      ev({ type: "message.delta", run_id: "run_1", delta: "partial" }),
      ev({ type: "run.failed", run_id: "run_1", error: { code: "model_error", message: "boom" } }),
    ]);
    expect(s.status).toBe("idle");
    expect(s.drafts).toEqual({});
    expect(s.runError).toEqual({ runId: "run_1", error: { code: "model_error", message: "boom" } });
    const next = apply(s, [{ type: "run.started", run_id: "run_2", trigger: "message", seq: 4 }]);
    expect(next.runError).toBeNull();
  });

  it("run.cancelled goes idle", () => {
    const s = apply(load(detail({ status: "running" })), [
      { type: "run.cancelled", run_id: "run_1", reason: "user", seq: 1 },
    ]);
    expect(s.status).toBe("idle");
  });
});

describe("replay idempotency", () => {
  it("ignores events with seq <= lastSeq (a replay after reconnect)", () => {
    const ev = sequence();
    const events = [
      ev({ type: "run.started", run_id: "run_1", trigger: "message" }),
      ev({ type: "message.delta", run_id: "run_1", delta: "Hi" }),
      ev({ type: "message.delta", run_id: "run_1", delta: " there" }),
    ];
    const once = apply(load(), events);
    const twice = apply(once, events);
    expect(twice).toBe(once);
    expect(twice.drafts.run_1).toBe("Hi there");
  });

  it("skips events already included in the loaded detail", () => {
    const s = load(detail({ last_event_seq: 5, messages: [message({ content: "stored" })] }));
    const after = apply(s, [
      { type: "message.delta", run_id: "run_1", delta: "old", seq: 4 },
      { type: "message.delta", run_id: "run_1", delta: "new", seq: 6 },
    ]);
    expect(after.drafts).toEqual({ run_1: "new" });
    expect(after.lastSeq).toBe(6);
  });

  it("a refresh never moves lastSeq backwards and keeps drafts only while running", () => {
    const ev = sequence();
    const s = apply(load(), [
      ev({ type: "run.started", run_id: "run_1", trigger: "message" }),
      ev({ type: "message.delta", run_id: "run_1", delta: "x" }),
    ]);
    const running = reducer(s, { type: "reset", detail: detail({ status: "running", last_event_seq: 1 }) });
    expect(running.lastSeq).toBe(2);
    expect(running.drafts).toEqual({ run_1: "x" });
    const idle = reducer(s, { type: "reset", detail: detail({ status: "idle", last_event_seq: 9 }) });
    expect(idle.lastSeq).toBe(9);
    expect(idle.drafts).toEqual({});
  });
});

describe("local actions", () => {
  it("local.sent marks the conversation running unless that run already ended", () => {
    expect(reducer(load(), { type: "local.sent", runId: "run_1" }).status).toBe("running");
    const ended = apply(load(), [{ type: "run.completed", run_id: "run_1", seq: 1 }]);
    expect(reducer(ended, { type: "local.sent", runId: "run_1" }).status).toBe("idle");
  });

  it("local.toolCall does not regress a call the stream already moved on", () => {
    const s = apply(load(), [
      { type: "tool_call.running", run_id: "run_1", tool_call: toolCall({ status: "running" }), seq: 1 },
    ]);
    const stale = toolCall({ status: "interrupted" });
    expect(reducer(s, { type: "local.toolCall", toolCall: stale })).toBe(s);
    const fresh = toolCall({ status: "succeeded" });
    expect(reducer(s, { type: "local.toolCall", toolCall: fresh }).toolCalls.call_1.status).toBe("succeeded");
  });
});

describe("slash commands and answers", () => {
  it("a command's call pauses the run even when the POST answer arrives after the stream", () => {
    const ev = sequence();
    const proposed = toolCall({ status: "pending", proposed_args: { text: "buy milk" } });
    let s = apply(load(), [
      ev({ type: "run.started", run_id: "run_1", trigger: "message" }),
      ev({ type: "message.completed", run_id: "run_1", message: message({ content: "/notes buy milk" }) }),
      ev({ type: "message.completed", run_id: "run_1", message: message({ id: 2, role: "assistant", content: "", tool_calls: [proposed] }) }),
      ev({ type: "tool_call.created", run_id: "run_1", tool_call: proposed }),
      ev({ type: "tool_call.interrupted", run_id: "run_1", tool_call: { ...proposed, status: "interrupted" } }),
      ev({ type: "run.paused", run_id: "run_1", pending: ["call_1"] }),
    ]);
    s = reducer(s, { type: "local.sent", runId: "run_1" }); // the 202, late
    expect(s.status).toBe("paused");
    expect(toolCallsOf(s, 2).map((c) => [c.status, c.proposed_args])).toEqual([["interrupted", { text: "buy milk" }]]);
  });

  it("a respond decision from the POST shows at once and is kept when the stream repeats it", () => {
    const ev = sequence();
    const asked = toolCall({ name: "ask.confirm", status: "interrupted", proposed_args: { summary: "Book it?" } });
    const decision = {
      id: "dec_1", type: "respond" as const, user_id: "user_local", user_name: "local", args: null, message: "yes",
      proposed_args: asked.proposed_args, created_at: "2025-01-01T00:00:01Z",
    };
    let s = apply(load(), [ev({ type: "tool_call.interrupted", run_id: "run_1", tool_call: asked })]);
    s = reducer(s, { type: "local.toolCall", toolCall: { ...asked, decision } });
    expect(s.toolCalls.call_1.decision?.message).toBe("yes");
    s = apply(s, [
      ev({ type: "tool_call.decided", run_id: "run_1", tool_call: { ...asked, decision } }),
      ev({ type: "tool_call.completed", run_id: "run_2", tool_call: { ...asked, status: "succeeded", decision, result_text: "yes" }, message: null }),
    ]);
    // The POST answer (interrupted) is older than the stream's succeeded state.
    expect(reducer(s, { type: "local.toolCall", toolCall: { ...asked, decision } })).toBe(s);
    expect(s.toolCalls.call_1).toMatchObject({ status: "succeeded", decision: { type: "respond", message: "yes" } });
  });
});

describe("decisions made elsewhere (another person or another tab)", () => {
  const decision = (over: Record<string, unknown> = {}) => ({
    id: "dec_9", type: "approve" as const, user_id: "user_bob", user_name: "bob", args: null, message: null,
    proposed_args: { text: "hi" }, created_at: "2025-01-01T00:00:05Z", ...over,
  });
  const paused = () => {
    const ev = sequence();
    const s = apply(load(), [
      ev({ type: "run.started", run_id: "run_1", trigger: "message" }),
      ev({ type: "message.completed", run_id: "run_1", message: message({ id: 2, role: "assistant", content: "" }) }),
      ev({ type: "tool_call.interrupted", run_id: "run_1", tool_call: toolCall({ status: "interrupted" }) }),
      ev({ type: "tool_call.interrupted", run_id: "run_1", tool_call: toolCall({ id: "call_2", status: "interrupted", created_at: "2025-01-01T00:00:01Z" }) }),
      ev({ type: "run.paused", run_id: "run_1", pending: ["call_1", "call_2"] }),
    ]);
    return { s, ev };
  };

  it("a decision seen on the stream closes that card only", () => {
    const { s, ev } = paused();
    expect(waitingCalls(s).map((c) => c.id)).toEqual(["call_1", "call_2"]);
    const next = apply(s, [
      ev({ type: "tool_call.decided", run_id: "run_1", tool_call: toolCall({ status: "interrupted", decision: decision() }) }),
    ]);
    expect(waitingCalls(next).map((c) => c.id)).toEqual(["call_2"]);
    expect(next.toolCalls.call_1.decision?.user_id).toBe("user_bob");
    expect(next.status).toBe("paused");
  });

  it("a late answer to this tab's own POST does not undo a newer state from the stream", () => {
    const { s, ev } = paused();
    const running = apply(s, [
      ev({ type: "tool_call.decided", run_id: "run_1", tool_call: toolCall({ status: "interrupted", decision: decision() }) }),
      ev({ type: "run.started", run_id: "run_2", trigger: "resume" }),
      ev({ type: "tool_call.running", run_id: "run_2", tool_call: toolCall({ status: "running", decision: decision() }) }),
    ]);
    const afterPost = reducer(running, {
      type: "local.toolCall",
      toolCall: toolCall({ status: "interrupted", decision: decision({ user_id: "user_local" }) }),
    });
    expect(afterPost.toolCalls.call_1.status).toBe("running");
    expect(afterPost.toolCalls.call_1.decision?.user_id).toBe("user_bob");
  });

  it("an undecided snapshot never reopens a call decided elsewhere", () => {
    const { s, ev } = paused();
    const decided = apply(s, [
      ev({ type: "tool_call.decided", run_id: "run_1", tool_call: toolCall({ status: "interrupted", decision: decision() }) }),
    ]);
    const stale = reducer(decided, { type: "local.toolCall", toolCall: toolCall({ status: "interrupted" }) });
    expect(waitingCalls(stale).map((c) => c.id)).toEqual(["call_2"]);
  });
});

describe("reconnect replay", () => {
  it("applies each event once when the stream replays after a drop", () => {
    const ev = sequence();
    const events = [
      ev({ type: "run.started", run_id: "run_1", trigger: "message" }),
      ev({ type: "message.completed", run_id: "run_1", message: message() }),
      ev({ type: "message.delta", run_id: "run_1", delta: "Hel" }),
      ev({ type: "message.delta", run_id: "run_1", delta: "lo" }),
    ];
    const before = apply(load(), events.slice(0, 3));
    // The connection dropped after seq 3; the server replays from Last-Event-ID (or from the
    // start when it did not know the id): seen events are skipped, the rest applied once.
    const after = apply(before, events);
    expect(after.drafts).toEqual({ run_1: "Hello" });
    expect(after.messages).toHaveLength(1);
    expect(after.lastSeq).toBe(4);
    expect(apply(after, events)).toBe(after);
  });

  it("a reload while disconnected keeps the newer sequence and skips older replays", () => {
    const ev = sequence();
    const s = apply(load(), [ev({ type: "run.started", run_id: "run_1", trigger: "message" })]);
    const reloaded = reducer(s, {
      type: "reset",
      detail: detail({ status: "idle", last_event_seq: 5, messages: [message(), message({ id: 2, role: "assistant", content: "Hi" })] }),
    });
    const replayed = apply(reloaded, [
      { type: "message.completed", run_id: "run_1", seq: 2, message: message() },
      { type: "message.delta", run_id: "run_1", seq: 3, delta: "Hi" },
    ]);
    expect(replayed.messages).toHaveLength(2);
    expect(replayed.drafts).toEqual({});
    expect(replayed.lastSeq).toBe(5);
  });
});

describe("progress", () => {
  it("thinks until the first token or call, and marks a stopped reply", () => {
    const ev = sequence();
    let s = apply(load(), [ev({ type: "run.started", run_id: "run_1", trigger: "message" })]);
    expect(s.activeRunId).toBe("run_1");
    expect(isThinking(s)).toBe(true);
    s = apply(s, [ev({ type: "message.delta", run_id: "run_1", delta: "Part 1." })]);
    expect(isThinking(s)).toBe(false);
    const partial = message({ id: 2, role: "assistant", content: "Part 1." });
    s = apply(s, [
      ev({ type: "message.completed", run_id: "run_1", message: partial }),
      ev({ type: "run.cancelled", run_id: "run_1", reason: "cancelled by the person" }),
    ]);
    expect(s.status).toBe("idle");
    expect(s.activeRunId).toBeNull();
    expect(isThinking(s)).toBe(false);
    expect(cutShort(s, partial)).toBe("stopped");
    expect(cutShort(s, message({ id: 3, role: "assistant", run_id: "run_2" }))).toBeNull();
  });

  it("keeps a stopped reply marked after a reload", () => {
    const partial = message({ id: 2, role: "assistant", content: "Part 1.", run_id: "run_7" });
    const s = load(detail({ messages: [message(), partial], stopped_runs: ["run_7"] }));
    expect(cutShort(s, partial)).toBe("stopped");
    expect(cutShort(s, message({ id: 3, role: "assistant", run_id: "run_8" }))).toBeNull();
  });

  it("marks a reply cut short by a server restart, and keeps it marked after a reload", () => {
    const ev = sequence();
    const partial = message({ id: 2, role: "assistant", content: "Part 1.", run_id: "run_1" });
    let s = apply(load(), [
      ev({ type: "run.started", run_id: "run_1", trigger: "message" }),
      ev({ type: "message.delta", run_id: "run_1", delta: "Part 1." }),
      ev({ type: "message.completed", run_id: "run_1", message: partial }),
      ev({
        type: "run.failed",
        run_id: "run_1",
        error: { code: "server_restarted", message: "The server stopped while the employee was working on this." },
      }),
      ev({ type: "run.started", run_id: "run_2", trigger: "resume" }),
    ]);
    expect(cutShort(s, partial)).toBe("restarted");
    expect(s.activeRunId).toBe("run_2");
    // Any other failure is not a cut: it shows as the run's error.
    s = apply(s, [ev({ type: "run.failed", run_id: "run_2", error: { code: "model_error", message: "x" } })]);
    expect(cutShort(s, message({ id: 3, role: "assistant", run_id: "run_2" }))).toBeNull();

    const reloaded = load(detail({ messages: [message(), partial], restarted_runs: ["run_1"] }));
    expect(cutShort(reloaded, partial)).toBe("restarted");
  });

  it("opened mid-reply from draft_after_seq, shows the whole draft once", () => {
    // The detail was read at seq 5 while run_1 streamed its reply from seq 3 on: the page
    // starts the stream after seq 2 (as useConversation does), so the deltas come again.
    const opened = detail({ status: "running", last_event_seq: 5, draft_after_seq: 2, messages: [message()] });
    expect(streamStart(opened)).toBe(2);
    expect(streamStart(detail({ last_event_seq: 5 }))).toBe(5); // nothing being written
    let s = load({ ...opened, last_event_seq: streamStart(opened) });
    const ev = sequence(3);
    s = apply(s, [
      ev({ type: "message.delta", run_id: "run_1", delta: "Part 1. " }),
      ev({ type: "message.delta", run_id: "run_1", delta: "Part 2. " }),
      ev({ type: "message.delta", run_id: "run_1", delta: "Part 3. " }),
      ev({ type: "message.delta", run_id: "run_1", delta: "Part 4." }),
    ]);
    expect(s.drafts.run_1).toBe("Part 1. Part 2. Part 3. Part 4.");
  });

  it("does not think while a tool call runs", () => {
    const ev = sequence();
    const s = apply(load(), [
      ev({ type: "run.started", run_id: "run_1", trigger: "message" }),
      ev({ type: "tool_call.running", run_id: "run_1", tool_call: toolCall({ status: "running", permission: "ALLOW" }) }),
    ]);
    expect(isThinking(s)).toBe(false);
  });

  it("counts a browser tool's call as waiting", () => {
    const s = apply(load(), [
      { type: "tool_call.created", run_id: "run_1", seq: 1, tool_call: toolCall({ status: "awaiting_client" }) },
    ]);
    expect(waitingCalls(s).map((c) => c.id)).toEqual(["call_1"]);
  });
});

describe("a deleted conversation", () => {
  const paused = () =>
    load(
      detail({
        status: "paused",
        last_event_seq: 4,
        messages: [message(), message({ id: 2, role: "assistant", content: "", tool_calls: [toolCall({ status: "interrupted" })] })],
      }),
    );

  it("conversation.deleted: nothing waits or runs any more", () => {
    const before = paused();
    expect(waitingCalls(before)).toHaveLength(1);
    const s = apply(before, [{ type: "conversation.deleted", seq: 5, run_id: null }]);
    expect(s.deleted).toBe(true);
    expect(s.status).toBe("idle");
    expect(waitingCalls(s)).toEqual([]);
    expect(s.lastSeq).toBe(5);
  });

  it("a 404 on reconnect (local.deleted) says the same", () => {
    const s = reducer(paused(), { type: "local.deleted" });
    expect(s.deleted).toBe(true);
    expect(waitingCalls(s)).toEqual([]);
  });

  it("a reset (another conversation loaded) is not deleted", () => {
    const s = reducer(reducer(paused(), { type: "local.deleted" }), { type: "reset", detail: detail() });
    expect(s.deleted).toBe(false);
  });
});

describe("waiting cards read again", () => {
  const confirmation = (summary: string) => ({ title: "Delete a note", summary, action_label: "Delete", detail: null, previous: null });
  const waiting = (summary: string, over: Parameters<typeof toolCall>[0] = {}) =>
    toolCall({ name: "notes.delete", status: "interrupted", confirmation: confirmation(summary), ...over });
  const loaded = (...calls: ReturnType<typeof toolCall>[]) =>
    load(detail({ status: "paused", messages: [message({ id: 2, role: "assistant", content: "", tool_calls: calls })] }));

  it("takes a waiting card's current sentence (the note changed or was deleted elsewhere)", () => {
    const s = loaded(waiting("Delete note #2: “buy milk”."));
    const next = reducer(s, { type: "local.cards", toolCalls: [waiting("Delete note #2 (this note no longer exists).")] });
    expect(next.toolCalls.call_1.confirmation?.summary).toBe("Delete note #2 (this note no longer exists).");
    // The same sentence again changes nothing.
    expect(reducer(next, { type: "local.cards", toolCalls: [waiting("Delete note #2 (this note no longer exists).")] })).toBe(next);
  });

  it("leaves a card decided meanwhile, and everything but the sentence, as the stream has them", () => {
    const decided = waiting("Delete note #2: “buy milk”.", {
      decision: { id: "d1", type: "approve", user_id: "u1", user_name: "Ada", args: null, message: null, proposed_args: { id: 2 }, created_at: "2026-01-01T00:00:00Z" },
    });
    const s = loaded(decided);
    expect(reducer(s, { type: "local.cards", toolCalls: [waiting("Delete note #2 (this note no longer exists).")] })).toBe(s);
    const other = loaded(waiting("Delete note #2: “buy milk”.", { expires_at: "2026-01-01T00:05:00Z" }));
    const next = reducer(other, { type: "local.cards", toolCalls: [waiting("Delete note #2: “buy bread”.", { expires_at: null })] });
    expect(next.toolCalls.call_1.expires_at).toBe("2026-01-01T00:05:00Z");
    expect(next.toolCalls.call_1.confirmation?.summary).toBe("Delete note #2: “buy bread”.");
  });
});
