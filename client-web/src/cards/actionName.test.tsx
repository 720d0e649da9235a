/** Card buttons say what they act on (screen readers list buttons without their card). */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { cardProps, toolCall } from "../test/fixtures";
import { actionName, SUBJECT_MAX_CHARS } from "./actionName";
import { ApprovalCard } from "./approval/ApprovalCard";
import { ChoiceCard } from "./choice/ChoiceCard";
import { ConfirmCard } from "./confirm/ConfirmCard";
import { DocumentCard } from "./document/DocumentCard";
import { MarkdownCard } from "./markdown/MarkdownCard";
import { reasonKey } from "./ReasonField";

const props = cardProps;

/** The accessible names of the buttons in rendered markup, by data-testid. */
function buttonNames(html: string): Record<string, string> {
  const names: Record<string, string> = {};
  for (const m of html.matchAll(/<button[^>]*data-testid="([^"]+)"[^>]*aria-label="([^"]*)"[^>]*>/g)) names[m[1]] = m[2];
  return names;
}

describe("actionName", () => {
  it("puts the visible words first, then what the button acts on", () => {
    expect(actionName("Approve", "Add a note: “buy milk”")).toBe("Approve — Add a note: “buy milk”");
  });

  it("is the visible words alone when there is nothing to add", () => {
    expect(actionName("Approve", "")).toBe("Approve");
    expect(actionName("Approve", "  ")).toBe("Approve");
    expect(actionName("Approve", null)).toBe("Approve");
    expect(actionName("Review", "Review")).toBe("Review");
  });

  it("keeps a long or multi-line subject on one short line", () => {
    const name = actionName("Reject", `first line\nsecond ${"x".repeat(300)}`);
    expect(name.startsWith("Reject — first line second x")).toBe(true);
    expect(name.endsWith("…")).toBe(true);
    expect(name.length).toBe("Reject — ".length + SUBJECT_MAX_CHARS);
  });
});

describe("the buttons of every built-in card name what they decide", () => {
  it("approval: Approve (or the tool's action), Edit and Reject name the summary", () => {
    const call = toolCall({
      status: "interrupted",
      confirmation: { title: "Add a note", summary: "Add a note: “buy milk”", action_label: "Add note", detail: null, previous: null },
    });
    const names = buttonNames(renderToStaticMarkup(<ApprovalCard {...props({ call })} />));
    expect(names.approve).toBe("Add note — Add a note: “buy milk”");
    expect(names.edit).toBe("Edit — Add a note: “buy milk”");
    expect(names.reject).toBe("Reject — Add a note: “buy milk”");
  });

  it("approval without a summary: the buttons name the tool's title", () => {
    const names = buttonNames(renderToStaticMarkup(<ApprovalCard {...props({ title: "Publish a post" })} />));
    expect(names.approve).toBe("Approve — Publish a post");
    expect(names.reject).toBe("Reject — Publish a post");
  });

  it("confirm: Yes and No name the question, and so does the card's region", () => {
    const call = toolCall({ name: "ask.confirm", status: "interrupted", proposed_args: { summary: "Move the meeting to Friday?" } });
    const html = renderToStaticMarkup(<ConfirmCard {...props({ call, title: "Ask to confirm" })} />);
    expect(buttonNames(html)).toMatchObject({ "confirm-yes": "Yes — Move the meeting to Friday?", "confirm-no": "No — Move the meeting to Friday?" });
    expect(html).toContain('aria-label="Confirm: Move the meeting to Friday?"');
  });

  it("choice: Decline names the question (suggestions and ask.choice)", () => {
    const suggestion = toolCall({ name: "suggestions", status: "interrupted", proposed_args: { question: "A name for the cat?", options: ["Miso", "Pixel"] } });
    expect(buttonNames(renderToStaticMarkup(<ChoiceCard {...props({ call: suggestion, title: "Suggestions" })} />))["choice-decline"]).toBe("Decline — A name for the cat?");
    const question = toolCall({ name: "ask.choice", status: "interrupted", proposed_args: { question: "Which colour?", options: ["red", "blue"] } });
    const html = renderToStaticMarkup(<ChoiceCard {...props({ call: question, title: "Ask to choose" })} />);
    expect(buttonNames(html)["choice-decline"]).toBe("Decline — Which colour?");
    expect(html).toContain('aria-label="Choice: Which colour?"');
  });

  it("document and markdown cards: Review (View once decided) names what is reviewed", () => {
    const doc = toolCall({ name: "documents.write", status: "interrupted", proposed_args: { title: "Trip plan", markdown: "# Trip" } });
    expect(buttonNames(renderToStaticMarkup(<DocumentCard {...props({ call: doc, title: "Save a document" })} />))["document-review"]).toBe(
      "Review — Save the document “Trip plan”",
    );
    const memo = toolCall({ name: "cardlab.memo", status: "succeeded", proposed_args: { body: "# Memo" }, decision: null });
    expect(buttonNames(renderToStaticMarkup(<MarkdownCard {...props({ call: memo, title: "Send a memo", live: false })} />))["markdown-open"]).toBe("View — Send a memo");
  });
});

describe("the reason box of a reject", () => {
  const key = (over: Partial<Parameters<typeof reasonKey>[0]>) =>
    reasonKey({ key: "a", shiftKey: false, altKey: false, ctrlKey: false, metaKey: false, isComposing: false, ...over });

  it("Enter confirms the reject; Shift+Enter and other keys type", () => {
    expect(key({ key: "Enter" })).toBe("submit");
    expect(key({ key: "Enter", shiftKey: true })).toBeNull();
    expect(key({ key: "Enter", ctrlKey: true })).toBeNull();
    expect(key({ key: "a" })).toBeNull();
  });

  it("Enter while an input method composes text does not send", () => {
    expect(key({ key: "Enter", isComposing: true })).toBeNull();
  });

  it("Escape goes back", () => {
    expect(key({ key: "Escape" })).toBe("escape");
  });
});

describe("the buttons of a list field in an edit form", () => {
  it("name the item they move or remove, and the add button says what it adds", async () => {
    const { EditForm } = await import("./approval/EditForm");
    const schema = { type: "object", properties: { tags: { type: "array", title: "Tags", items: { type: "string" } } } };
    const html = renderToStaticMarkup(
      <EditForm schema={schema} initial={{ tags: ["sale", "spring"] }} fieldErrors={[]} disabled={false} idPrefix="e" subject="Publish a post" onSubmit={() => {}} onCancel={() => {}} />,
    );
    for (const name of ["Move item 1 down", "Move item 2 up", "Remove item 1", "Remove item 2", "Add an item", "Save and approve — Publish a post"]) {
      expect(html).toContain(`aria-label="${name}"`);
    }
    // The glyphs are decoration: every button of the form has a name of words.
    const unnamed = [...html.matchAll(/<button(?![^>]*aria-label=)[^>]*>(.*?)<\/button>/g)].map((m) => m[1]);
    expect(unnamed).toEqual(["Cancel"]);
  });
});
