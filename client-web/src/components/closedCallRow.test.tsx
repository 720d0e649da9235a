/** A call closed without running (cancelled, expired, not run) reads in the person's words. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ToolCallOut, ToolOut } from "../api/types";
import { AppDataContext } from "../state/appData";
import { reducer, initialState } from "../state/reducer";
import { detail, message, toolCall } from "../test/fixtures";
import { MessageList } from "./MessageList";

const tools = {
  "notes.add": {
    name: "notes.add",
    title: "Add a note",
    input_schema: { type: "object", properties: { text: { type: "string", title: "Note" } } },
  } as unknown as ToolOut,
  "notes.delete": {
    name: "notes.delete",
    title: "Delete a note",
    input_schema: { type: "object", properties: { id: { type: "integer", title: "Note number" } } },
  } as unknown as ToolOut,
};

function row(call: ToolCallOut): string {
  const state = reducer(initialState, {
    type: "reset",
    detail: detail({ messages: [message({ id: 2, role: "assistant", content: "", tool_calls: [call] })] }),
  });
  const out = renderToStaticMarkup(
    <AppDataContext.Provider value={{ me: null, tools, employees: {}, reload: () => {} }}>
      <MessageList state={state} />
    </AppDataContext.Provider>,
  );
  const said = /data-testid="tool-args">([^<]*)</.exec(out);
  return said ? said[1] : out;
}

const confirmation = { title: "Add a note", summary: "Add a note: “cancel me”", action_label: "Add note", detail: null, previous: null };

describe("the row of a call that did not run", () => {
  it("says what the call would have done with the tool's own sentence", () => {
    for (const status of ["cancelled", "expired"] as const) {
      const call = toolCall({ id: "c", message_id: 2, name: "notes.add", status, proposed_args: { text: "cancel me" }, confirmation });
      expect(row(call)).toBe("Add a note: “cancel me”");
    }
  });

  it("labels the args from the schema's titles when the tool made no sentence, never as raw keys", () => {
    const call = toolCall({ id: "c", message_id: 2, name: "notes.delete", status: "failed", proposed_args: { id: 1 }, confirmation: null });
    expect(row(call)).toBe("Note number: 1");
  });

  it("says an edited call with the args it ran with, not the proposal's sentence", () => {
    const call = toolCall({
      id: "c",
      message_id: 2,
      name: "notes.add",
      status: "failed",
      proposed_args: { text: "cancel me" },
      executed_args: { text: "keep me" },
      confirmation,
    });
    expect(row(call)).toBe("Note: keep me");
  });
});
