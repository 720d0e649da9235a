/**
 * Found in QA: an RTL override (U+202E) in the person's own message and in a card's Edit form
 * showed raw, so the text read reversed while the card's sentence said "[U+202E]". The
 * message, the form's fields (with a line under the input, whose value must stay as written),
 * a conversation's title and an employee's name read `[U+202E]` like every other text.
 */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ConversationHeader } from "../components/ConversationHeader";
import { Message } from "../components/MessageList";
import { message } from "../test/fixtures";
import { SchemaForm } from "./SchemaForm";
import type { JsonObject } from "../api/types";

const RLO = "\u202e";

function form(schema: JsonObject, formData: JsonObject): string {
  return renderToStaticMarkup(
    <SchemaForm schema={schema} formData={formData} fieldErrors={[]} disabled={false} idPrefix="t" errorsLabel="Problems" onChange={() => {}} onSubmit={() => {}}>
      <button type="submit">Save</button>
    </SchemaForm>,
  );
}

/** The text a page shows for `html`: tags dropped (attribute values such as an input's are not shown text). */
function shown(html: string): string {
  return html.replace(/<[^>]*>/g, "");
}

describe("hidden characters in what a person wrote", () => {
  it("shows them as [U+202E] in the person's own message, short or folded", () => {
    const short = renderToStaticMarkup(<Message message={message({ role: "user", content: `add a note from ${RLO}Hal conv` })} calls={[]} toolMessages={{}} />);
    expect(shown(short)).toContain("add a note from [U+202E]Hal conv");
    expect(short).not.toContain(RLO);
    const long = renderToStaticMarkup(<Message message={message({ role: "user", content: `${RLO}evil ${"x".repeat(25_000)}` })} calls={[]} toolMessages={{}} />);
    expect(shown(long)).toContain("[U+202E]evil");
    expect(long).not.toContain(RLO);
  });

  it("keeps an Edit field's value as written and says under it how it reads", () => {
    const schema = { type: "object", properties: { text: { type: "string", title: "Text" }, long: { type: "string", title: "Long" }, plain: { type: "string" } } };
    const html = form(schema, { text: `from ${RLO}Hal conv`, long: `line one\nline \u001b two ${RLO}x`, plain: "buy milk" });
    // The input still holds the text itself: submitting sends what was proposed.
    expect(html).toContain(`value="from ${RLO}Hal conv"`);
    const notes = html.match(/data-testid="hidden-chars"[^>]*>([^<]*(?:<[^>]*>[^<]*)*?)<\/p>/g) ?? [];
    expect(notes).toHaveLength(2);
    expect(shown(notes[0] ?? "")).toContain("This text holds hidden characters that can change how it reads. As written: “from [U+202E]Hal conv”");
    expect(shown(notes[1] ?? "")).toContain("[U+001B] two [U+202E]x");
    expect(notes.join("")).not.toContain(RLO);
  });

  it("adds no line to a field without hidden characters", () => {
    const html = form({ type: "object", properties: { text: { type: "string" } } }, { text: "buy milk" });
    expect(html).not.toContain("hidden-chars");
  });

  it("shows a conversation's title and an employee's name with [U+202E]", () => {
    const employee = { slug: "ada", name: `Ada ${RLO}x`, title: `Helper ${RLO}y`, avatar: "A" } as unknown as Parameters<typeof ConversationHeader>[0]["employee"];
    const html = renderToStaticMarkup(
      <ConversationHeader title={`Invoice ${RLO}gnp.exe`} state={{} as never} employee={employee} offline={false} stream="open" logOpen={false} onToggleLog={() => {}} />,
    );
    expect(shown(html)).toContain("Invoice [U+202E]gnp.exe");
    expect(shown(html)).toContain("Ada [U+202E]x");
    expect(shown(html)).toContain("Helper [U+202E]y");
    expect(html).not.toContain(RLO);
  });
});
