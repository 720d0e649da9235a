/** The tab title counts decisions waiting for the person, across their conversations. */
import type { ConversationSummary } from "../api/types";

export const APP_NAME = "Interlock";

/**
 * Decisions waiting across conversations. The server's `pending` counts are used, except for
 * the open conversation, whose live count (from its event stream) is fresher.
 */
export function waitingTotal(
  conversations: Array<Pick<ConversationSummary, "id"> & { pending?: number | null }>,
  open?: { id: string; waiting: number } | null,
): number {
  let total = 0;
  let openSeen = false;
  for (const c of conversations) {
    if (open && c.id === open.id) {
      total += open.waiting;
      openSeen = true;
    } else {
      total += Math.max(0, c.pending ?? 0);
    }
  }
  if (open && !openSeen) total += open.waiting;
  return total;
}

/** "(2) Ada · Interlock" while decisions wait, else "Ada · Interlock" (or just the app name). */
export function documentTitle(waiting: number, page?: string | null): string {
  const base = page ? `${page} · ${APP_NAME}` : APP_NAME;
  return waiting > 0 ? `(${waiting}) ${base}` : base;
}
