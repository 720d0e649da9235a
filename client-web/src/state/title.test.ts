import { describe, expect, it } from "vitest";
import { documentTitle, waitingTotal } from "./title";

describe("tab title", () => {
  const list = [
    { id: "a", pending: 2 },
    { id: "b", pending: 0 },
    { id: "c", pending: 1 },
  ];

  it("adds up the server's pending counts", () => {
    expect(waitingTotal(list)).toBe(3);
    expect(waitingTotal([{ id: "x" }, { id: "y", pending: null }])).toBe(0);
  });

  it("uses the open conversation's live count instead of its listed one", () => {
    expect(waitingTotal(list, { id: "a", waiting: 0 })).toBe(1);
    expect(waitingTotal(list, { id: "b", waiting: 3 })).toBe(6);
    // Open but not listed yet (the list is read later): still counted.
    expect(waitingTotal(list, { id: "new", waiting: 1 })).toBe(4);
  });

  it("puts the count first, only when something waits", () => {
    expect(documentTitle(0)).toBe("Interlock");
    expect(documentTitle(2)).toBe("(2) Interlock");
    expect(documentTitle(1, "Shopping")).toBe("(1) Shopping · Interlock");
  });
});
