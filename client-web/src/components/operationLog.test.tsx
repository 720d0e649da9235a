/** The operation log reads like the cards: titles and labelled args, never raw keys or a skill's instructions. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ToolOut } from "../api/types";
import { AppDataContext } from "../state/appData";
import { initialState, reducer } from "../state/reducer";
import { detail, message, toolCall } from "../test/fixtures";
import { OperationLog } from "./OperationLog";

describe("the operation log", () => {
  it("says 'Add a note: buy bread' and a loaded skill's new tools, never 'text:' or instructions", () => {
    const add = toolCall({ id: "a", message_id: 2, name: "notes.add", status: "succeeded", permission: "ALLOW", proposed_args: { text: "buy bread" }, result_text: "Added note #1." });
    const load = toolCall({
      id: "b",
      message_id: 2,
      name: "load_skill",
      status: "succeeded",
      permission: "ALLOW",
      proposed_args: { name: "documents" },
      result_text: "Skill documents loaded. Instructions:\n# Documents\n\nUse these tools when the person asks...",
      result_data: { skill: "documents", tools: ["documents.list"] },
    });
    const state = reducer(initialState, {
      type: "reset",
      detail: detail({ messages: [message({ id: 2, role: "assistant", content: "", tool_calls: [add, load] })] }),
    });
    const tools = {
      "notes.add": { name: "notes.add", title: "Add a note", input_schema: { properties: { text: { type: "string" } } } } as unknown as ToolOut,
      load_skill: { name: "load_skill", title: "Load a skill", input_schema: {} } as unknown as ToolOut,
      "documents.list": { name: "documents.list", title: "List documents" } as unknown as ToolOut,
    };
    const out = renderToStaticMarkup(
      <AppDataContext.Provider value={{ me: null, tools, employees: {}, reload: () => {} }}>
        <OperationLog state={state} />
      </AppDataContext.Provider>,
    );
    expect(out).toContain("Add a note: buy bread");
    expect(out).toContain("Now available: List documents.");
    expect(out).not.toContain("text:");
    expect(out).not.toContain("Instructions");
    expect(out).not.toContain("Use these tools");
  });
});
