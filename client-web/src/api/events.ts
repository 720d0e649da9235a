/**
 * The conversation event stream: SSE over fetch (so it can carry the Authorization
 * header), resumed with `Last-Event-ID` = the last seq seen after every drop.
 */
import { fetchEventSource } from "@microsoft/fetch-event-source";
import { ApiError, authHeaders, errorFromResponse, notifyUnauthorized } from "./client";
import { STREAM_EVENT_TYPES, type StreamEvent } from "./types";

export type StreamState = "connecting" | "open" | "reconnecting" | "closed";

export interface StreamOptions {
  url: string;
  /** The seq to resume after (read on every (re)connect). */
  lastSeq: () => number;
  onEvent: (event: StreamEvent) => void;
  onState?: (state: StreamState, error?: ApiError) => void;
}

class StreamClosed extends Error {}

const KNOWN = new Set<string>(STREAM_EVENT_TYPES);

/** Parses one SSE frame's data; unknown or malformed frames give null. */
export function parseEvent(id: string, eventName: string, data: string): StreamEvent | null {
  if (!data) return null;
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(data) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (!obj || typeof obj !== "object") return null;
  const type = typeof obj.type === "string" ? obj.type : eventName;
  if (!KNOWN.has(type)) return null;
  const seq = typeof obj.seq === "number" ? obj.seq : id ? Number(id) : NaN;
  if (!Number.isInteger(seq) || seq < 1) return null; // seqs start at 1
  return { ...obj, type, seq } as StreamEvent;
}

/** No bytes (events or the server's pings, every 15 s by default) for this long: the link is dead. */
export const STALL_MS = 45_000;

/**
 * Opens the stream and keeps it open until the returned function is called.
 *
 * Reconnects by itself (`reconnectDelay`: 0.25 s doubling to 4 s, with jitter) after a
 * dropped connection or a server restart, always with `Last-Event-ID` = the last seq seen, so nothing is missed or
 * applied twice. A connection silent for `STALL_MS` is dropped and reopened; waking from
 * sleep (timers late), coming back online, a resumed frozen tab, or a tab hidden for a while
 * reconnect at once.
 */
export function openEventStream(opts: StreamOptions): () => void {
  const controller = new AbortController();
  const { signal } = controller;
  let attempt: AbortController | null = null;
  let lastActivity = Date.now();
  let wake: (() => void) | null = null;

  /** Drops the current connection (if any) and skips the backoff wait. */
  const reconnectNow = () => {
    attempt?.abort();
    wake?.();
  };

  // Counts every chunk the server sends (pings included) as a sign of life.
  const watchedFetch: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (!res.body) return res;
    const body = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, out) {
          lastActivity = Date.now();
          out.enqueue(chunk);
        },
      }),
    );
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };

  // Every 5 s: a silent connection is dead; a tick far later than due means the machine
  // slept (timers stop), and the connection is almost surely gone: reconnect at once.
  let lastTick = Date.now();
  const watchdog = setInterval(() => {
    const now = Date.now();
    const slept = now - lastTick > 15_000;
    lastTick = now;
    if (attempt && (slept || now - lastActivity > STALL_MS)) reconnectNow();
  }, 5_000);

  let hiddenAt = 0;
  const onVisibility = () => {
    if (document.visibilityState === "hidden") hiddenAt = Date.now();
    else if (hiddenAt && Date.now() - hiddenAt > 30_000) reconnectNow();
  };
  const hasWindow = typeof window !== "undefined";
  if (hasWindow) {
    window.addEventListener("online", reconnectNow);
    document.addEventListener("visibilitychange", onVisibility);
    document.addEventListener("resume", reconnectNow); // a frozen tab was resumed
  }

  const loop = async () => {
    let failures = 0;
    let first = true;
    while (!signal.aborted) {
      if (first) opts.onState?.("connecting");
      first = false;
      attempt = new AbortController();
      const current = attempt;
      const stop = () => current.abort();
      signal.addEventListener("abort", stop);
      lastActivity = Date.now();
      try {
        await fetchEventSource(opts.url, {
          signal: current.signal,
          fetch: watchedFetch,
          openWhenHidden: true,
          headers: { ...authHeaders(), "last-event-id": String(opts.lastSeq()) },
          async onopen(res) {
            if (!res.ok) throw await errorFromResponse(res);
            failures = 0;
            opts.onState?.("open");
          },
          onmessage(msg) {
            const event = parseEvent(msg.id, msg.event, msg.data);
            if (event) opts.onEvent(event);
            // The conversation is gone: nothing to reconnect to (a reconnect would be a 404).
            if (event?.type === "conversation.deleted") controller.abort();
          },
          onclose() {
            throw new StreamClosed("stream closed by the server");
          },
          onerror(err) {
            throw err; // never let the library retry: this loop does, with a fresh Last-Event-ID
          },
        });
      } catch (err) {
        if (err instanceof ApiError) {
          if (err.status === 401) notifyUnauthorized();
          if (err.status === 401 || err.status === 403 || err.status === 404) {
            opts.onState?.("closed", err);
            break;
          }
        }
      } finally {
        signal.removeEventListener("abort", stop);
        attempt = null;
      }
      if (signal.aborted) break;
      opts.onState?.("reconnecting");
      await sleep(reconnectDelay(failures), signal, (w) => (wake = w));
      wake = null;
      failures += 1;
    }
    clearInterval(watchdog);
    if (hasWindow) {
      window.removeEventListener("online", reconnectNow);
      document.removeEventListener("visibilitychange", onVisibility);
      document.removeEventListener("resume", reconnectNow);
    }
    if (signal.aborted) opts.onState?.("closed");
  };
  void loop();
  return () => controller.abort();
}

/** First wait before a reconnect, in ms; it doubles with each failed try up to `MAX_RETRY_MS`. */
export const FIRST_RETRY_MS = 250;
/** Longest wait before a reconnect: a server back after a restart is found within this. */
export const MAX_RETRY_MS = 4_000;

/**
 * The wait before reconnect try `failures` (0 for the first): bounded exponential backoff
 * with jitter (between half and all of `FIRST_RETRY_MS * 2^failures`, at most `MAX_RETRY_MS`),
 * so the first tries are quick and many pages do not all come back in the same instant.
 */
export function reconnectDelay(failures: number, random: () => number = Math.random): number {
  const ceiling = Math.min(FIRST_RETRY_MS * 2 ** Math.min(failures, 16), MAX_RETRY_MS);
  return ceiling / 2 + random() * (ceiling / 2);
}

function sleep(ms: number, signal: AbortSignal, onWake: (wake: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    const done = () => {
      clearTimeout(t);
      resolve();
    };
    onWake(done);
    signal.addEventListener("abort", done, { once: true });
  });
}
