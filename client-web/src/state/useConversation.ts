/** Loads one conversation, follows its event stream and exposes the reduced state. */
import { useCallback, useEffect, useReducer, useRef, useState } from "react";
import { ApiError, api } from "../api/client";
import { openEventStream, type StreamState } from "../api/events";
import { initialState, reducer, type Action, type ConversationState } from "./reducer";

export interface ConversationHandle {
  state: ConversationState;
  dispatch: (action: Action) => void;
  /** Re-reads the conversation from the server (e.g. after a 409). */
  refresh: () => Promise<void>;
  loadError: ApiError | null;
  stream: StreamState;
}

export function useConversation(id: string): ConversationHandle {
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
        dispatch({ type: "reset", detail });
        lastSeq.current = detail.last_event_seq;
        close = openEventStream({
          url: api.eventsUrl(id),
          lastSeq: () => lastSeq.current,
          onEvent: (event) => {
            dispatch({ type: "event", event });
            lastSeq.current = Math.max(lastSeq.current, event.seq);
          },
          onState: (s, err) => {
            setStream(s);
            if (err) setLoadError(err);
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
  }, [id]);

  return { state: state.id === id ? state : initialState, dispatch, refresh, loadError, stream };
}
