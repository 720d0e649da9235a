import { describe, expect, it } from "vitest";
import { toolCall } from "../test/fixtures";
import {
  argsDetail,
  argsSummary,
  clipDetail,
  cut,
  decidedBy,
  oneLine,
  resultSummary,
  timeOfDay,
} from "./opLog";

const decision = (over: Record<string, unknown> = {}) => ({
  id: "dec_1",
  type: "approve" as const,
  user_id: "user_ann",
  user_name: "ann",
  args: null,
  message: null,
  proposed_args: null,
  created_at: "2025-01-01T00:00:01Z",
  ...over,
});

describe("operation log rows", () => {
  it("summarises args as key: value pairs on one line of at most 80 characters", () => {
    expect(argsSummary(toolCall({ proposed_args: { text: "buy\nmilk", id: 2 } }))).toBe('text: "buy\\nmilk", id: 2');
    expect(argsSummary(toolCall({ proposed_args: { tags: ["a", "b"], opts: { x: 1 } } }))).toBe(
      "tags: [2 items], opts: {…}",
    );
    expect(argsSummary(toolCall({ proposed_args: {} }))).toBe("no arguments");
    const long = argsSummary(toolCall({ proposed_args: { text: "x".repeat(500) } }));
    expect(long).toHaveLength(80);
    expect(long.endsWith("…")).toBe(true);
  });

  it("prefers the executed args and falls back to the raw text", () => {
    expect(argsSummary(toolCall({ proposed_args: { text: "a" }, executed_args: { text: "b" } }))).toBe('text: "b"');
    expect(argsSummary(toolCall({ proposed_args: null, raw_args: "{broken   json" }))).toBe("{broken json");
    expect(argsDetail(toolCall({ proposed_args: { a: 1 } }))).toBe('{\n  "a": 1\n}');
  });

  it("summarises results and errors on one line", () => {
    expect(resultSummary(toolCall({ result_text: "Added note #2:\n  buy milk" }))).toBe("Added note #2: buy milk");
    expect(resultSummary(toolCall({ error: { code: "not_found", message: "No note #9." } }))).toBe("No note #9.");
    expect(resultSummary(toolCall(), { content: "from the tool message" })).toBe("from the tool message");
    expect(resultSummary(toolCall())).toBe("");
  });

  it("cuts without splitting an emoji and says how much the detail left out", () => {
    expect(cut("ab😀cd", 4)).toBe("ab…");
    expect(oneLine("  a \t b  ")).toBe("a b");
    expect(clipDetail("x".repeat(10_005))).toEqual({ text: "x".repeat(10_000), omitted: 5 });
    expect(clipDetail("short")).toEqual({ text: "short", omitted: 0 });
  });

  it("names who decided", () => {
    const me = { id: "user_ann" };
    expect(decidedBy(toolCall({ decision: decision() }), me)).toBe("you");
    expect(decidedBy(toolCall({ decision: decision({ user_id: "user_bob", user_name: "bob" }) }), me)).toBe("bob");
    expect(decidedBy(toolCall({ permission: "ALLOW", status: "succeeded" }), me)).toBe("allowed");
    expect(decidedBy(toolCall({ status: "interrupted" }), me)).toBe("");
  });

  it("shows the time of day with seconds", () => {
    expect(timeOfDay("2025-01-01T00:00:00Z")).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(timeOfDay("nonsense")).toBe("");
  });
});
