/**
 * Time left to decide a waiting tool call, read against the server's clock (the server
 * closes the call as `expired` at `expires_at`). Calm while there is time; in the last
 * minute it turns into a warning, announced once to screen readers.
 */
import { useEffect, useState } from "react";
import { serverNow } from "../../state/serverClock";

const WARN_S = 60;

/** "23 h 59 min", "4 min 10 s", "42 s": whole seconds left, rounded down. */
export function formatTimeLeft(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, "0")} s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h ${String(m % 60).padStart(2, "0")} min`;
  return `${Math.floor(h / 24)} days ${h % 24} h`;
}

/** Seconds from the server's now to `expiresAt` (negative once past). */
export function secondsLeft(expiresAt: string, now: number = serverNow()): number {
  return (Date.parse(expiresAt) - now) / 1000;
}

export function ExpiryCountdown({ expiresAt }: { expiresAt: string }) {
  const [left, setLeft] = useState(() => secondsLeft(expiresAt));
  useEffect(() => {
    setLeft(secondsLeft(expiresAt));
    const timer = window.setInterval(() => setLeft(secondsLeft(expiresAt)), 1000);
    return () => window.clearInterval(timer);
  }, [expiresAt]);

  if (Number.isNaN(left)) return null;
  const at = new Date(expiresAt).toLocaleString();
  if (left <= 0) {
    return (
      <p className="expiry expiry-over" data-testid="expiry" data-state="over" role="status">
        Time is up: this call was not decided in time and will not run.
      </p>
    );
  }
  const warn = left <= WARN_S;
  return (
    <p
      className={warn ? "expiry expiry-warn" : "expiry"}
      data-testid="expiry"
      data-state={warn ? "warn" : "ok"}
      title={`Decide before ${at}; after that the call is closed without running.`}
    >
      {warn ? (
        <>
          <strong role="alert">Less than a minute left to decide.</strong>{" "}
          <span aria-hidden="true">{formatTimeLeft(left)} left</span>
        </>
      ) : (
        <>Decide within {formatTimeLeft(left)}</>
      )}
    </p>
  );
}
