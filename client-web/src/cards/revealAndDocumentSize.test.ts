/** Values quoted in our sentences cannot reorder them; a document's size reads as the server counts it. */
import { describe, expect, it } from "vitest";
import { toolCall } from "../test/fixtures";
import { answerWords } from "./answerWords";
import { reveal } from "./reveal";
import { documentSize } from "./document/DocumentCard";

const respond = (message: string) => ({
  id: "dec_1",
  type: "respond" as const,
  user_id: "u",
  user_name: "Ann",
  args: null,
  message,
  proposed_args: null,
  created_at: "2026-01-01T00:00:00Z",
});

describe("an override left open in an answer", () => {
  it("reads [U+202E] in a form's answer line, as on every card", () => {
    const call = toolCall({
      name: "ask.form",
      proposed_args: { title: "You", fields: { type: "object", properties: { name: { type: "string", title: "Name" }, age: { type: "integer", title: "Age" } } } },
      decision: respond(JSON.stringify({ name: "Zoë \u202eevil", age: 30 })),
    });
    expect(answerWords(call)).toBe("Name: Zoë [U+202E]evil · Age: 30");
  });

  it("reads [U+2067] in an option, and plain answers are left as they are", () => {
    const call = toolCall({ name: "ask.choice", decision: respond(JSON.stringify(["\u2067tea", "coffee"])) });
    expect(answerWords(call)).toBe("[U+2067]tea, coffee");
    expect(reveal("שלום\u200f and tea")).toBe("שלום\u200f and tea");
  });
});

describe("a document's size on its card", () => {
  it("counts lines and characters as the card's sentence does", () => {
    // The server's "Create the document “Trip plan” (4 lines)." for this text.
    expect(documentSize("# Trip plan\n\n- First point\n- Second point\n")).toBe("4 lines · 42 characters");
    expect(documentSize("")).toBe("1 line · 0 characters");
    expect(documentSize("one 🦊")).toBe("1 line · 5 characters");
    expect(documentSize("a\r\nb\rc\u2028d")).toBe("4 lines · 8 characters");
  });
});
