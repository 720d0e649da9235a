/** Loads one conversation, follows its event stream and exposes the reduced state. */
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { ApiError, api } from "../api/client";
import { openEventStream, type StreamState } from "../api/events";
import { initialState, reducer, streamStart, waitingCard, type Action, type ConversationState } from "./reducer";

export interface ConversationHandle {
  state: ConversationState;
  dispatch: (action: Action) => void;
  /** Re-reads the conversation from the server (e.g. after a 409). */
  refresh: () => Promise<void>;
  loadError: ApiError | null;
  stream: StreamState;
  /** The stream is open: cards may decide (they disable while it reconnects). */
  connected: boolean;
}

/**
 * `replayAll`: read the whole event stream from the start instead of after the loaded detail,
 * for a conversation created a moment ago (its first run may already be streaming, and its
 * draft must show from the first token). Cheap: a new conversation has few events.
 */
export function useConversation(id: string, replayAll = false): ConversationHandle {
  const [state, dispatch] = useReducer(reducer, initialState);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [stream, setStream] = useState<StreamState>("connecting");
  // The seq to resume the stream after; kept in a ref so a reconnect reads the latest.
  const lastSeq = useRef(0);

  const refresh = useCallback(async () => {
    try {
      const detail = await api.conversation(id);
      dispatch({ type: "reset", detail });
      lastSeq.current = Math.max(lastSeq.current, detail.last_event_seq);
    } catch (e) {
      setLoadError(e instanceof ApiError ? e : new ApiError(0, { code: "error", message: String(e) }));
    }
  }, [id]);

  useEffect(() => {
    let cancelled = false;
    let close: (() => void) | null = null;
    lastSeq.current = 0;
    setLoadError(null);
    setStream("connecting");
    api.conversation(id).then(
      (detail) => {
        if (cancelled) return;
        const from = replayAll ? 0 : streamStart(detail);
        dispatch({ type: "reset", detail: { ...detail, last_event_seq: from } });
        lastSeq.current = from;
        close = openEventStream({
          url: api.eventsUrl(id),
          lastSeq: () => lastSeq.current,
          onEvent: (event) => {
            dispatch({ type: "event", event });
            lastSeq.current = Math.max(lastSeq.current, event.seq);
          },
          onState: (s, err) => {
            setStream(s);
            // Loaded a moment ago, now 404: deleted meanwhile (the reducer says so in words).
            if (err?.status === 404) dispatch({ type: "local.deleted" });
            else if (err) setLoadError(err);
            else if (s === "open") setLoadError(null); // back: errors from the outage are stale
          },
        });
      },
      (e: unknown) => {
        if (!cancelled) setLoadError(e instanceof ApiError ? e : new ApiError(0, { code: "error", message: String(e) }));
      },
    );
    return () => {
      cancelled = true;
      close?.();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- replayAll is read once, at open
  }, [id]);

  // A waiting card names things as they were when it was proposed; back on the page (another
  // tab or conversation may have changed them), read its sentence again.
  const stateRef = useRef(state);
  stateRef.current = state;
  useEffect(() => {
    const reread = () => {
      const current = stateRef.current;
      if (document.visibilityState !== "visible" || current.id !== id) return;
      if (!Object.values(current.toolCalls).some(waitingCard)) return;
      api.pending(id).then(
        (toolCalls) => dispatch({ type: "local.cards", toolCalls }),
        () => {}, // a failed re-read keeps the cards as they are; the stream reports outages
      );
    };
    window.addEventListener("focus", reread);
    document.addEventListener("visibilitychange", reread);
    return () => {
      window.removeEventListener("focus", reread);
      document.removeEventListener("visibilitychange", reread);
    };
  }, [id]);

  return {
    state: state.id === id ? state : initialState,
    dispatch,
    refresh,
    loadError,
    stream,
    connected: stream === "open",
  };
}
