import { describe, expect, it } from "vitest";
import type { ConversationSummary } from "../api/types";
import { emptyList, waitingByConversation, withFirstPage, withNextPage } from "./conversationList";

/** A conversation active `minute` minutes after 12:00 (larger: more recent). */
const conv = (id: string, minute: number): ConversationSummary => ({
  id,
  title: id,
  employee: "ada",
  status: "idle",
  pending: 0,
  channel: "chat",
  created_at: "2026-11-01T12:00:00Z",
  updated_at: new Date(Date.UTC(2026, 10, 1, 12, minute)).toISOString(),
});
const ids = (items: ConversationSummary[]) => items.map((c) => c.id);

describe("the conversation list, a page at a time", () => {
  it("appends the next page and its cursor", () => {
    const first = withFirstPage(emptyList, { items: [conv("e", 5), conv("d", 4)], next: "c1" });
    expect(first).toMatchObject({ next: "c1", pages: 1 });
    const both = withNextPage(first, { items: [conv("c", 3), conv("b", 2)], next: null });
    expect(ids(both.items)).toEqual(["e", "d", "c", "b"]);
    expect(both).toMatchObject({ next: null, pages: 2 });
  });

  it("a fresh first page keeps the older pages loaded, without repeats", () => {
    const loaded = withNextPage(withFirstPage(emptyList, { items: [conv("e", 5), conv("d", 4)], next: "c1" }), {
      items: [conv("c", 3), conv("b", 2)],
      next: "c2",
    });
    // "b" became active (now on the first page); "f" is new.
    const fresh = withFirstPage(loaded, { items: [conv("b", 9), conv("f", 8)], next: "x" });
    expect(ids(fresh.items)).toEqual(["b", "f", "e", "d", "c"]);
    expect(fresh).toMatchObject({ next: "c2", pages: 2 });
  });

  it("a first page that is the whole list replaces it", () => {
    const loaded = withNextPage(withFirstPage(emptyList, { items: [conv("b", 2)], next: "c1" }), {
      items: [conv("a", 1)],
      next: null,
    });
    expect(withFirstPage(loaded, { items: [conv("a", 1)], next: null })).toEqual({
      items: [conv("a", 1)],
      next: null,
      pages: 1,
    });
  });

  it("counts waiting calls per own conversation from the approvals", () => {
    const counts = waitingByConversation([
      { role: "owner", conversation: { id: "a" } },
      { role: "owner", conversation: { id: "a" } },
      { role: "approver", conversation: { id: "z" } },
      { role: "owner", conversation: { id: "b" } },
    ]);
    expect(counts).toEqual([
      { id: "a", pending: 2 },
      { id: "b", pending: 1 },
    ]);
  });
});
