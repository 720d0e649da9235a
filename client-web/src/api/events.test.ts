import { describe, expect, it } from "vitest";
import { parseEvent } from "./events";

describe("parseEvent", () => {
  it("parses a frame's data", () => {
    const e = parseEvent("3", "message.delta", JSON.stringify({ type: "message.delta", seq: 3, run_id: "r", delta: "x" }));
    expect(e).toEqual({ type: "message.delta", seq: 3, run_id: "r", delta: "x" });
  });

  it("falls back to the frame's id and event name", () => {
    const e = parseEvent("4", "run.completed", JSON.stringify({ run_id: "r" }));
    expect(e).toEqual({ type: "run.completed", seq: 4, run_id: "r" });
  });

  it("ignores unknown types and malformed data", () => {
    expect(parseEvent("1", "", "")).toBeNull();
    expect(parseEvent("1", "x", "{not json")).toBeNull();
    expect(parseEvent("1", "", JSON.stringify({ type: "something.else", seq: 1 }))).toBeNull();
    expect(parseEvent("", "", JSON.stringify({ type: "run.completed" }))).toBeNull();
  });
});
