import { describe, expect, it } from "vitest";
import { toolCall } from "../test/fixtures";
import type { ToolOut } from "../api/types";
import {
  callSummary,
  clipDetail,
  cut,
  decidedBy,
  oneLine,
  questionText,
  resultSummary,
  resultText,
  timeOfDay,
} from "./opLog";

const tools: Record<string, ToolOut> = {
  "notes.add": { name: "notes.add", title: "Add a note", input_schema: { properties: { text: { type: "string" } } } } as unknown as ToolOut,
  "notes.rename": {
    name: "notes.rename",
    title: "Rename a note",
    input_schema: { properties: { id: { title: "Note number" }, text: { title: "New text" } } },
  } as unknown as ToolOut,
  "documents.list": { name: "documents.list", title: "List documents" } as unknown as ToolOut,
};

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
  it("says what the call does as its card does, never with raw keys", () => {
    expect(callSummary(toolCall({ name: "notes.add", proposed_args: { text: "buy bread" } }), tools)).toBe("Add a note: buy bread");
    expect(callSummary(toolCall({ name: "notes.rename", proposed_args: { id: 2, text: "buy\nmilk" } }), tools)).toBe(
      "Rename a note: Note number: 2 · New text: buy milk",
    );
    const confirmed = toolCall({
      name: "notes.add",
      proposed_args: { text: "x" },
      confirmation: { title: "Add a note", summary: "Add a note: “buy bread”", action_label: "Add", detail: null, previous: null },
    });
    expect(callSummary(confirmed, tools)).toBe("Add a note: “buy bread”");
    // Approved as proposed (same args, any key order): still the confirmation's words.
    const ran = { ...confirmed, proposed_args: { text: "x", tag: "a" }, executed_args: { tag: "a", text: "x" } };
    expect(callSummary(ran, tools)).toBe("Add a note: “buy bread”");
    // Edited: it ran with other args, so the row says what ran, not the proposal's summary.
    expect(callSummary({ ...confirmed, proposed_args: { text: "buy bread" }, executed_args: { text: "buy milk" } }, tools)).toBe(
      "Add a note: buy milk",
    );
    expect(callSummary(toolCall({ name: "other.tool", title: "Do it", proposed_args: {} }), tools)).toBe("Do it");
    const long = callSummary(toolCall({ name: "notes.add", proposed_args: { text: "x".repeat(500) } }), tools);
    expect(long).toHaveLength(80);
    expect(long.endsWith("…")).toBe(true);
    for (const text of [callSummary(toolCall({ name: "notes.add", proposed_args: { text: "buy bread" } }), tools)]) {
      expect(text).not.toContain("text:");
      expect(text).not.toContain('"');
    }
  });

  it("says what a question asks, never its form's JSON Schema", () => {
    const form = toolCall({
      name: "ask.form",
      proposed_args: {
        title: "Your details",
        fields: { type: "object", properties: { name: { type: "string", title: "Name" }, email_address: { type: "string" } }, required: ["name"] },
      },
    });
    expect(questionText(form)).toBe("Your details: Name, Email address");
    expect(callSummary(form, tools)).toBe("Your details: Name, Email address");
    expect(callSummary(form, tools)).not.toMatch(/Type|Properties/);
    const choice = toolCall({ name: "ask.choice", proposed_args: { question: "Which one?", options: ["tea", "coffee", "juice"] } });
    expect(questionText(choice)).toBe("Which one? tea, coffee or juice");
    expect(questionText(toolCall({ name: "ask.confirm", proposed_args: { summary: "Book Friday?" } }))).toBe("Book Friday?");
    expect(questionText(toolCall({ name: "ask.form", proposed_args: { fields: "odd" } }))).toBeNull();
    expect(questionText(toolCall({ name: "notes.add", proposed_args: { text: "x" } }))).toBeNull();
  });

  it("prefers the executed args and never shows unreadable raw args as the summary", () => {
    expect(callSummary(toolCall({ name: "notes.add", proposed_args: { text: "a" }, executed_args: { text: "b" } }), tools)).toBe(
      "Add a note: b",
    );
    expect(callSummary(toolCall({ name: "notes.add", proposed_args: null, raw_args: "{broken   json" }), tools)).toBe(
      "Add a note: arguments the model sent could not be read",
    );
  });

  it("never shows a loaded skill's instructions, only the tools it brought", () => {
    const call = toolCall({
      name: "load_skill",
      status: "succeeded",
      result_text: "Skill documents loaded. Instructions:\n# Documents\nUse these tools when...",
      result_data: { skill: "documents", tools: ["documents.list"] },
    });
    expect(resultSummary(call, tools)).toBe("Now available: List documents.");
    expect(resultText(call, tools)).not.toContain("Instructions");
    expect(resultText(call, tools, { content: "Skill documents loaded. Instructions: ..." })).toBe("Now available: List documents.");
  });

  it("gives an answered question's result as the answer, not the text the model got", () => {
    const respond = (message: string) => ({ id: "d", type: "respond" as const, user_id: "u", user_name: "Ann", args: null, message, proposed_args: null, created_at: "2026-01-01T00:00:00Z" });
    const fields = { type: "object", properties: { name: { type: "string", title: "Name" }, age: { type: "integer", title: "Age" } } };
    const form = toolCall({ name: "ask.form", status: "succeeded", proposed_args: { title: "Your details", fields }, decision: respond('{"name":"Ann","age":33}'), result_text: '{"name":"Ann","age":33}' });
    expect(resultText(form, tools)).toBe("Name: Ann · Age: 33");
    const several = toolCall({ name: "ask.choice", status: "succeeded", proposed_args: { question: "Which?", options: ["tea", "coffee"], multiple: true }, decision: respond('["tea","coffee"]'), result_text: '["tea","coffee"]' });
    expect(resultSummary(several, tools)).toBe("tea, coffee");
    const picked = toolCall({ name: "suggestions", status: "succeeded", proposed_args: { options: ["Miso", "Pixel"] }, executed_args: { options: ["Miso", "Pixel"], option: "Miso" }, decision: { ...respond(""), type: "edit" }, result_text: "The person chose: Miso" });
    expect(resultText(picked, tools)).toBe("Miso");
  });

  it("summarises results and errors on one line", () => {
    expect(resultSummary(toolCall({ result_text: "Added note #2:\n  buy milk" }), tools)).toBe("Added note #2: buy milk");
    expect(resultSummary(toolCall({ error: { code: "not_found", message: "No note #9." } }), tools)).toBe("No note #9.");
    expect(resultText(toolCall({ error: { code: "not_found", message: "No note #9." } }), tools)).toBe("No note #9."); // no raw code
    expect(resultSummary(toolCall(), tools, { content: "from the tool message" })).toBe("from the tool message");
    expect(resultSummary(toolCall(), tools)).toBe("");
  });

  it("cuts without splitting an emoji and says how much the detail left out", () => {
    expect(cut("ab😀cd", 4)).toBe("ab…");
    expect(oneLine("  a \t b  ")).toBe("a b");
    expect(clipDetail("x".repeat(10_005))).toEqual({ text: "x".repeat(10_000), omitted: 5 });
    expect(clipDetail("short")).toEqual({ text: "short", omitted: 0 });
  });

  it("names who decided", () => {
    const me = { id: "user_ann" };
    expect(decidedBy(toolCall({ decision: decision() }), me)).toBe("by you");
    expect(decidedBy(toolCall({ decision: decision({ user_id: "user_bob", user_name: "bob" }) }), me)).toBe("by bob");
    expect(decidedBy(toolCall({ permission: "ALLOW", status: "succeeded" }), me)).toBe("allowed without asking");
    expect(decidedBy(toolCall({ status: "interrupted" }), me)).toBe("");
  });

  it("says what closed a call nobody decided, never “by nobody (cancelled)” (tryout)", () => {
    const me = { id: "user_ann" };
    const sentNew = toolCall({ status: "cancelled", error: { code: "cancelled", message: "You sent a new message." } });
    expect(decidedBy(sentNew, me)).toBe("");
    expect(resultSummary(sentNew, {})).toBe("You sent a new message.");
    expect(decidedBy(toolCall({ status: "cancelled" }), me)).toBe("closed before anyone decided");
    expect(decidedBy(toolCall({ status: "expired" }), me)).toBe("nobody decided in time");
  });

  it("shows the time of day with seconds", () => {
    expect(timeOfDay("2025-01-01T00:00:00Z")).toMatch(/^\d\d:\d\d:\d\d$/);
    expect(timeOfDay("nonsense")).toBe("");
  });
});
