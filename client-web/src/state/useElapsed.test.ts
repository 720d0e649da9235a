import { describe, expect, it } from "vitest";
import { elapsedSeconds, formatElapsed } from "./useElapsed";

describe("elapsed time", () => {
  it("counts whole seconds from an ISO timestamp, never below zero", () => {
    const start = "2025-01-01T00:00:00Z";
    const t = Date.parse(start);
    expect(elapsedSeconds(start, t + 12_900)).toBe(12);
    expect(elapsedSeconds(start, t - 5_000)).toBe(0);
    expect(elapsedSeconds(null, t)).toBe(0);
    expect(elapsedSeconds("not a date", t)).toBe(0);
  });

  it("formats seconds, minutes and hours", () => {
    expect(formatElapsed(7)).toBe("7 s");
    expect(formatElapsed(125)).toBe("2 min 05 s");
    expect(formatElapsed(3720)).toBe("1 h 02 min");
  });
});
