import { describe, expect, it } from "vitest";
import { ApiError, fieldErrorWords } from "./client";

const invalid = (...messages: string[]) =>
  new ApiError(422, {
    code: "invalid_request",
    message: "The request is not valid.",
    details: { errors: messages.map((message) => ({ path: ["body", "title"], message, rule: "value_error" })) },
  });

describe("a refused field in words (a rename, a message)", () => {
  it("says the field errors instead of 'The request is not valid.'", () => {
    expect(fieldErrorWords(invalid("The title must have at most 200 characters."))).toBe("The title must have at most 200 characters.");
    expect(fieldErrorWords(invalid("Value error, not a cursor", "approval_timeout_s must be positive"))).toBe(
      "Not a cursor. approval_timeout_s must be positive.",
    );
    expect(fieldErrorWords(new ApiError(409, { code: "run_active", message: "A run is active." }))).toBeNull();
    expect(fieldErrorWords(invalid())).toBeNull();
  });
});
