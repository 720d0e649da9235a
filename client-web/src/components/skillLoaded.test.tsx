/** A loaded skill reads in the person's words, not as the instructions the model got. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ToolOut } from "../api/types";
import { AppDataContext } from "../state/appData";
import { reducer, initialState } from "../state/reducer";
import { detail, message, toolCall } from "../test/fixtures";
import { ArgFields } from "../cards/fields/ArgFields";
import { skillLoadedText } from "../state/skillLoaded";
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

  it("says which of its tools cannot run now and why, never “Now available” for them (tryout: docs MCP server down)", () => {
    const down = "The MCP server 'docs' is not available: nothing answers at its address.";
    const tools = {
      "mcp.docs.search": { name: "mcp.docs.search", title: "Search the docs", available: false, reason: down } as ToolOut,
      "notes.add": { name: "notes.add", title: "Add a note", available: true, reason: null } as ToolOut,
    };
    const said = { skill: "docs", tools: ["notes.add"], unavailable: { "mcp.docs.search": down } };
    expect(skillLoadedText({ result_data: said }, tools)).toBe(
      "Now available: Add a note. Not available right now: Search the docs (The MCP server 'docs' is not available: nothing answers at its address).",
    );
    // An older result without `unavailable`: the tool list says the tool is down.
    expect(skillLoadedText({ result_data: { skill: "docs", tools: ["mcp.docs.search"] } }, tools)).toBe(
      "Not available right now: Search the docs (The MCP server 'docs' is not available: nothing answers at its address).",
    );
    expect(skillLoadedText({ result_data: { skill: "docs", tools: [] } }, tools)).toBe("No new tools.");
  });

  it("shows the skill argument with its label only, not the help written for the model", () => {
    const schema = { type: "object", properties: { name: { type: "string", title: "Skill", description: "The skill's name, as listed under 'Skills you can load'." } } };
    const out = renderToStaticMarkup(<ArgFields schema={schema} args={{ name: "documents" }} />);
    expect(out).toContain("Skill");
    expect(out).toContain("documents");
    expect(out).not.toContain("Skills you can load");
  });
});
