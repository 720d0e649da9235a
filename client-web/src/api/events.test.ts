import { describe, expect, it, vi } from "vitest";
import { MAX_RETRY_MS, openEventStream, parseEvent, reconnectDelay } from "./events";

describe("parseEvent", () => {
  it("parses a frame's data", () => {
    const e = parseEvent("3", "message.delta", JSON.stringify({ type: "message.delta", seq: 3, run_id: "r", delta: "x" }));
    expect(e).toEqual({ type: "message.delta", seq: 3, run_id: "r", delta: "x" });
  });

  it("falls back to the frame's id and event name", () => {
    const e = parseEvent("4", "run.completed", JSON.stringify({ run_id: "r" }));
    expect(e).toEqual({ type: "run.completed", seq: 4, run_id: "r" });
  });

  it("ignores unknown types and malformed data", () => {
    expect(parseEvent("1", "", "")).toBeNull();
    expect(parseEvent("1", "x", "{not json")).toBeNull();
    expect(parseEvent("1", "", JSON.stringify({ type: "something.else", seq: 1 }))).toBeNull();
    expect(parseEvent("", "", JSON.stringify({ type: "run.completed" }))).toBeNull();
  });
});

describe("openEventStream", () => {
  const frame = (seq: number) =>
    `id: ${seq}\nevent: run.started\ndata: ${JSON.stringify({ type: "run.started", seq, run_id: "r", trigger: "message" })}\n\n`;

  /** A response streaming `frames`, then closing (or staying open when `hold`). */
  const sse = (frames: string[], hold = false) =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          for (const f of frames) controller.enqueue(new TextEncoder().encode(f));
          if (!hold) controller.close();
        },
      }),
      { status: 200, headers: { "content-type": "text/event-stream" } },
    );

  it("reconnects by itself after the server closes the stream, resuming after the last seq", async () => {
    const win = Object.assign(new EventTarget(), { setTimeout, clearTimeout });
    const doc = Object.assign(new EventTarget(), { hidden: false, visibilityState: "visible" });
    vi.stubGlobal("window", win);
    vi.stubGlobal("document", doc);
    const sent: string[] = [];
    const answers = [sse([frame(1), frame(2)]), sse([frame(3)], true)];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (_url: string, init: RequestInit) => {
        sent.push((init.headers as Record<string, string>)["last-event-id"]);
        return answers.shift() ?? sse([], true);
      }),
    );
    try {
      const seen: number[] = [];
      const states: string[] = [];
      let last = 0;
      const close = openEventStream({
        url: "/api/conversations/c/events",
        lastSeq: () => last,
        onEvent: (e) => {
          seen.push(e.seq);
          last = e.seq;
        },
        onState: (s) => states.push(s),
      });
      await vi.waitFor(() => expect(seen).toEqual([1, 2, 3]), { timeout: 3000 });
      close();
      await vi.waitFor(() => expect(states.at(-1)).toBe("closed"));
      expect(sent).toEqual(["0", "2"]);
      expect(states).toEqual(["connecting", "open", "reconnecting", "open", "closed"]);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it("stops after conversation.deleted: no reconnect, state closed", async () => {
    const win = Object.assign(new EventTarget(), { setTimeout, clearTimeout });
    const doc = Object.assign(new EventTarget(), { hidden: false, visibilityState: "visible" });
    vi.stubGlobal("window", win);
    vi.stubGlobal("document", doc);
    const deleted = `id: 2\nevent: conversation.deleted\ndata: ${JSON.stringify({ type: "conversation.deleted", seq: 2, run_id: null })}\n\n`;
    const fetchMock = vi.fn(async () => sse([frame(1), deleted]));
    vi.stubGlobal("fetch", fetchMock);
    try {
      const seen: string[] = [];
      const states: string[] = [];
      openEventStream({
        url: "/api/conversations/c/events",
        lastSeq: () => 0,
        onEvent: (e) => seen.push(e.type),
        onState: (s) => states.push(s),
      });
      await vi.waitFor(() => expect(states.at(-1)).toBe("closed"), { timeout: 3000 });
      expect(seen).toEqual(["run.started", "conversation.deleted"]);
      expect(states).toEqual(["connecting", "open", "closed"]);
      expect(fetchMock).toHaveBeenCalledTimes(1);
    } finally {
      vi.unstubAllGlobals();
    }
  });
});

describe("reconnectDelay", () => {
  it("retries quickly at first, doubles, and never waits longer than the bound", () => {
    const low = (n: number) => reconnectDelay(n, () => 0);
    const high = (n: number) => reconnectDelay(n, () => 1);
    expect([0, 1, 2, 3, 4, 5, 50].map(high)).toEqual([250, 500, 1000, 2000, 4000, 4000, MAX_RETRY_MS]);
    // Jitter: between half and all of the ceiling, so pages do not all come back at once.
    expect([0, 1, 4].map(low)).toEqual([125, 250, 2000]);
    // A server back after a restart is found within a few seconds, not ~12 s as before.
    const firstFive = [0, 1, 2, 3, 4].map(high).reduce((a, b) => a + b, 0);
    expect(firstFive).toBeLessThan(8_000);
  });
});
