/** A call an MCP client made says who asked for it, on its card and in words. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { toolCall } from "../test/fixtures";
import { ToolCardHeader, originText } from "./ToolCardHeader";

describe("the origin of a call", () => {
  it("reads 'Requested by <client> via MCP' for an MCP call, nothing for a chat call", () => {
    expect(originText(toolCall({ client_name: "Claude Desktop" }))).toBe("Requested by Claude Desktop via MCP");
    expect(originText(toolCall())).toBeNull();
  });

  it("shows under the card's heading, with or without a confirmation", () => {
    const call = toolCall({ client_name: "Claude Desktop" });
    const plain = renderToStaticMarkup(<ToolCardHeader title="Add a note" tool={undefined} call={call} />);
    expect(plain).toContain('data-testid="card-origin">Requested by Claude Desktop via MCP</p>');
    const confirmed = toolCall({
      client_name: "VS Code",
      confirmation: { title: "Add a note", summary: "Add the note “buy milk”", action_label: "Add", detail: null, previous: null },
    });
    const stacked = renderToStaticMarkup(<ToolCardHeader title="Add a note" tool={undefined} call={confirmed} />);
    expect(stacked).toContain("Requested by VS Code via MCP");
    expect(renderToStaticMarkup(<ToolCardHeader title="Add a note" tool={undefined} call={toolCall()} />)).not.toContain("card-origin");
  });
});
