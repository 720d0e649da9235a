/**
 * What a page of settings keeps around its actions (the Permissions page, its MCP tokens):
 * which action is running (`busy`, a key of the page's choosing), the last error and the last
 * notice (shown by `PageFeedback`), and data loaded now and again whenever the window regains
 * focus (another tab may have changed it).
 */
import { useCallback, useEffect, useState } from "react";
import { asApiError } from "../api/client";

export interface PageActions {
  busy: string | null;
  error: string | null;
  notice: string | null;
  setNotice: (text: string | null) => void;
  /** Show why a request failed (for `promise.then(set, fail)`). */
  fail: (e: unknown) => void;
  /**
   * Run `action` as `key`: `busy` meanwhile, the error cleared first; when it throws, its
   * message is shown and `onError` called (e.g. to load the data again).
   */
  run: (key: string, action: () => Promise<void>, onError?: () => void) => Promise<void>;
}

export function usePageActions(): PageActions {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const fail = useCallback((e: unknown) => setError(asApiError(e).message), []);
  const run = useCallback(
    async (key: string, action: () => Promise<void>, onError?: () => void) => {
      setBusy(key);
      setError(null);
      try {
        await action();
      } catch (e) {
        fail(e);
        onError?.();
      } finally {
        setBusy(null);
      }
    },
    [fail],
  );
  return { busy, error, notice, setNotice, fail, run };
}

/** Call `load` now and whenever the window regains focus. */
export function useLoadOnFocus(load: () => void): void {
  useEffect(() => {
    load();
    window.addEventListener("focus", load);
    return () => window.removeEventListener("focus", load);
  }, [load]);
}
