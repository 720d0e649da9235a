/**
 * The server's clock as seen from the browser: deadlines (a tool call's `expires_at`) are set
 * and enforced on the server's clock, so a countdown reads them against it, not against a
 * possibly skewed browser clock.
 *
 * Every API answer's `Date` header (whole seconds) updates the offset; differences within the
 * header's resolution are ignored.
 */

let offsetMs = 0;

/** Records the server's `Date` header of an answer received at `receivedAt` (ms since the epoch). */
export function noteServerDate(header: string | null, receivedAt: number = Date.now()): void {
  if (!header) return;
  const server = Date.parse(header);
  if (Number.isNaN(server)) return;
  // `Date` drops the milliseconds: the server's time was in [server, server + 1000).
  const diff = server + 500 - receivedAt;
  offsetMs = Math.abs(diff) > 1500 ? diff : 0;
}

/** The server's current time, in ms since the epoch. */
export function serverNow(): number {
  return Date.now() + offsetMs;
}

/** For tests: forget what was learnt. */
export function resetServerClock(): void {
  offsetMs = 0;
}
