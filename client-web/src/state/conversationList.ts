/**
 * The sidebar's conversation list, loaded a page at a time (latest activity first).
 *
 * The first page is read again often (activity, focus, a timer); older pages are read once,
 * when the person scrolls to the end. Re-reading the first page keeps the older pages
 * already loaded: those that sort after its last conversation stay, the others moved up (they
 * are in the first page now) or are gone.
 */
import type { ConversationSummary } from "../api/types";

export interface ConversationPage {
  items: ConversationSummary[];
  /** The cursor of the next page; null on the last page. */
  next: string | null;
}

export interface ConversationList {
  items: ConversationSummary[];
  /** The cursor of the next page not loaded yet; null when everything is loaded. */
  next: string | null;
  /** Pages loaded (0 before the first answer). */
  pages: number;
}

export const emptyList: ConversationList = { items: [], next: null, pages: 0 };

/** Whether `a` comes after `b` in the list (less recent activity; ties by id, descending). */
export function sortsAfter(a: ConversationSummary, b: ConversationSummary): boolean {
  const at = Date.parse(a.updated_at);
  const bt = Date.parse(b.updated_at);
  if (at !== bt) return at < bt;
  return a.id < b.id;
}

/** The list with a fresh first page. */
export function withFirstPage(list: ConversationList, page: ConversationPage): ConversationList {
  const last = page.items[page.items.length - 1];
  if (list.pages <= 1 || page.next === null || !last) return { items: page.items, next: page.next, pages: 1 };
  const fresh = new Set(page.items.map((c) => c.id));
  const older = list.items.filter((c) => !fresh.has(c.id) && sortsAfter(c, last));
  return { items: [...page.items, ...older], next: list.next, pages: list.pages };
}

/** The list with the page that follows it (a conversation already listed is not repeated). */
export function withNextPage(list: ConversationList, page: ConversationPage): ConversationList {
  const known = new Set(list.items.map((c) => c.id));
  return {
    items: [...list.items, ...page.items.filter((c) => !known.has(c.id))],
    next: page.next,
    pages: list.pages + 1,
  };
}

/** Waiting calls per conversation, from the caller's approvals (every page, not only the loaded ones). */
export function waitingByConversation(
  approvals: Array<{ role?: string | null; conversation: { id: string } }>,
): Array<{ id: string; pending: number }> {
  const counts = new Map<string, number>();
  for (const a of approvals) {
    if (a.role === "approver") continue;
    counts.set(a.conversation.id, (counts.get(a.conversation.id) ?? 0) + 1);
  }
  return [...counts].map(([id, pending]) => ({ id, pending }));
}
