import { describe, expect, it } from "vitest";
import { notAppliedSentence } from "./CardHost";

describe("notAppliedSentence", () => {
  it("keeps the server's sentence whole, with one full stop", () => {
    expect(notAppliedSentence("This tool call is not waiting for a decision.")).toBe(
      "Your decision was not applied. This tool call is not waiting for a decision. The recorded decision is shown.",
    );
  });

  it("ends an unpunctuated reason with a full stop", () => {
    expect(notAppliedSentence("Someone else decided first")).toBe(
      "Your decision was not applied. Someone else decided first. The recorded decision is shown.",
    );
  });

  it("says the rest when the server gave no reason", () => {
    expect(notAppliedSentence("  ")).toBe("Your decision was not applied. The recorded decision is shown.");
  });

  it("promises no recorded decision for a call that expired or was cancelled (nobody decided it)", () => {
    expect(notAppliedSentence("Too late: this call was cancelled and did not run. You sent a new message.", false)).toBe(
      "Your decision was not applied. Too late: this call was cancelled and did not run. You sent a new message.",
    );
  });
});
