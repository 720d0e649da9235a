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

/** Opens the stream and keeps it open until the returned function is called. */
export function openEventStream(opts: StreamOptions): () => void {
  const controller = new AbortController();
  const { signal } = controller;

  const loop = async () => {
    let delay = 500;
    let first = true;
    while (!signal.aborted) {
      opts.onState?.(first ? "connecting" : "reconnecting");
      first = false;
      try {
        await fetchEventSource(opts.url, {
          signal,
          openWhenHidden: true,
          headers: { ...authHeaders(), "last-event-id": String(opts.lastSeq()) },
          async onopen(res) {
            if (!res.ok) throw await errorFromResponse(res);
            delay = 500;
            opts.onState?.("open");
          },
          onmessage(msg) {
            const event = parseEvent(msg.id, msg.event, msg.data);
            if (event) opts.onEvent(event);
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
            return;
          }
        }
      }
      if (signal.aborted) break;
      await sleep(delay, signal);
      delay = Math.min(delay * 2, 10_000);
    }
    opts.onState?.("closed");
  };
  void loop();
  return () => controller.abort();
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => {
      clearTimeout(t);
      resolve();
    });
  });
}
