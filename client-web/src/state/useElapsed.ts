/**
 * Elapsed time since a server timestamp, re-rendered once a second while `running`.
 *
 * Shared by the card's status line ("Running · 12 s") and the operation log, so both count
 * the same way. The clock is the browser's: a skewed server clock can make the first
 * reading negative, which is shown as 0.
 */
import { useEffect, useState } from "react";

/** Whole seconds from `since` (ISO 8601) to `now` (ms since the epoch); never negative. */
export function elapsedSeconds(since: string | null | undefined, now: number): number {
  if (!since) return 0;
  const start = Date.parse(since);
  if (Number.isNaN(start)) return 0;
  return Math.max(0, Math.floor((now - start) / 1000));
}

/** "7 s", "2 min 05 s", "1 h 02 min": short, for a status line. */
export function formatElapsed(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min`;
}

/**
 * Seconds elapsed since `since`, ticking every second while `running` is true.
 *
 * Args: `since` – the start (e.g. a tool call's `started_at`, else `created_at`);
 * `running` – tick only while true (a finished call keeps its last reading).
 * Returns whole seconds (0 when `since` is missing).
 */
export function useElapsed(since: string | null | undefined, running: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [running, since]);
  return elapsedSeconds(since, now);
}
