/** A loaded skill reads in the person's words, not as the instructions the model got. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ToolOut } from "../api/types";
import { AppDataContext } from "../state/appData";
import { reducer, initialState } from "../state/reducer";
import { detail, message, toolCall } from "../test/fixtures";
import { MessageList } from "./MessageList";

describe("a load_skill call", () => {
  it("names the tools the skill brought, never its instructions", () => {
    const call = toolCall({
      id: "c",
      message_id: 2,
      name: "load_skill",
      status: "succeeded",
      proposed_args: { name: "documents" },
      result_text: "Skill documents loaded. Instructions:\n# Documents\n\nUse these tools when the person asks...",
      result_data: { skill: "documents", tools: ["documents.list", "documents.write"] },
    });
    const state = reducer(initialState, {
      type: "reset",
      detail: detail({ messages: [message({ id: 2, role: "assistant", content: "", tool_calls: [call] })] }),
    });
    const tools = { "documents.list": { name: "documents.list", title: "List documents" } as ToolOut };
    const out = renderToStaticMarkup(
      <AppDataContext.Provider value={{ me: null, tools, employees: {}, reload: () => {} }}>
        <MessageList state={state} />
      </AppDataContext.Provider>,
    );
    expect(out).toContain("Now available: List documents, documents.write.");
    expect(out).not.toContain("Instructions");
    expect(out).not.toContain("Use these tools");
  });
});
