/** A question's card states the person's answer; the result worded for the model is not shown beside it. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ToolCallOut, ToolOut } from "../api/types";
import { AppDataContext } from "../state/appData";
import { initialState, reducer } from "../state/reducer";
import { decision } from "../test/decisions";
import { detail, message, toolCall } from "../test/fixtures";
import { MessageList } from "./MessageList";

function render(call: ToolCallOut, tools: Record<string, ToolOut> = {}): string {
  const state = reducer(initialState, {
    type: "reset",
    detail: detail({ messages: [message({ id: 2, role: "assistant", content: "", tool_calls: [call] })] }),
  });
  return renderToStaticMarkup(
    <AppDataContext.Provider value={{ me: null, tools, employees: {}, reload: () => {} }}>
      <MessageList state={state} />
    </AppDataContext.Provider>,
  );
}

describe("an answered question", () => {
  it("shows a form's answer in words, never the JSON the model got", () => {
    const out = render(
      toolCall({
        name: "ask.form",
        title: "Ask to fill in a form",
        card: "form",
        status: "succeeded",
        proposed_args: { title: "Your details", fields: { type: "object", properties: { name: { type: "string", title: "Name" } } } },
        decision: decision({ type: "respond", message: '{"name":"Ann"}' }),
        result_text: '{"name":"Ann","email":"ann@example.com","age":33}',
      }),
    );
    expect(out).not.toContain("{&quot;name&quot;");
    expect(out).not.toContain('data-testid="tool-result"');
  });

  it("shows a chosen suggestion once, not as “The person chose”", () => {
    const out = render(
      toolCall({
        name: "suggestions",
        title: "Suggestions",
        card: "choice",
        status: "succeeded",
        proposed_args: { options: ["Miso", "Pixel"] },
        executed_args: { options: ["Miso", "Pixel"], option: "Miso" },
        decision: decision({ type: "edit", args: { options: ["Miso", "Pixel"], option: "Miso" } }),
        result_text: "The person chose: Miso",
      }),
    );
    expect(out).toContain("Chose “Miso”"); // as the audit says it (audit/words outcomeText)
    expect(out).not.toContain("The person chose");
  });

  it("still shows the result of a tool that is not a question", () => {
    const out = render(
      toolCall({ status: "succeeded", decision: decision(), result_text: "Added note #1: buy milk" }),
    );
    expect(out).toContain("Added note #1: buy milk");
  });

  it("words a note answered instead of added by its badge and answer, not the model's text", () => {
    // The card read "Done" above "hi"; then the model's "Not run: the person answered ..." line.
    const out = render(
      toolCall({
        name: "notes.add",
        card: "approval",
        status: "succeeded",
        started_at: null,
        executed_args: null,
        decision: decision({ type: "respond", message: "no thanks" }),
        result_text: "Not run: the person answered instead of running “Add a note”: no thanks",
      }),
    );
    expect(out).toContain("Answered, not run");
    expect(out).toContain("Answered: no thanks");
    expect(out).not.toContain('data-testid="tool-result"');
    expect(out).not.toContain("Not run: the person answered");
  });
});
