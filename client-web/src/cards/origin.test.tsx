/** A call an MCP client made says who asked for it, on its card and in words. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ApprovalOut } from "../api/types";
import { ApproverItem, refusedSentence } from "../components/ApproverItem";
import { toolCall } from "../test/fixtures";
import { ToolCardHeader, originText } from "./ToolCardHeader";

/** ann's call as bob, an approver, sees it in the Approvals view (static markup). */
function approverEntry(call: ApprovalOut["tool_call"], channel: ApprovalOut["conversation"]["channel"]): string {
  const item: ApprovalOut = {
    tool_call: call,
    conversation: {
      id: "conv_1",
      title: "ann's conversation",
      employee: "assistant",
      status: "paused",
      pending: 1,
      channel,
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
    },
    role: "approver",
    requested_by: "ann",
    message: null,
  };
  return renderToStaticMarkup(
    <ApproverItem item={item} tool={undefined} tools={{}} employee={undefined} myId="user_bob" onDecided={() => {}} onRefused={() => {}} />,
  );
}

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

describe("an approver's entry for someone else's MCP call", () => {
  it("names the person and the MCP client (found in QA: only the person was named)", () => {
    const html = approverEntry(toolCall({ client_name: "Claude Desktop", status: "interrupted" }), "mcp");
    expect(html).toContain("asks you to approve, for </span><strong");
    expect(html).toContain(">ann</strong>");
    expect(html).toContain("· Requested by Claude Desktop via MCP");
  });
});

describe("an approver's entry", () => {
  it("says what the call would do in words, not only its args (found in QA: “Id 2” alone)", () => {
    const summary = "Delete note #2: “call mom”. It can be undone afterwards.";
    const call = toolCall({
      name: "notes.delete",
      status: "interrupted",
      proposed_args: { id: 2 },
      confirmation: { title: "Delete a note", summary, action_label: "Delete", detail: null, previous: null },
    });
    const html = approverEntry(call, "chat");
    expect(html).toContain('data-testid="approval-summary">Delete note #2: “call mom”. It can be undone afterwards.</p>');
  });
});

describe("an approver's decision that came too late", () => {
  it("keeps the server's reason, naming who closed the call, once the call left the list", () => {
    const said = "Too late: this call was cancelled and did not run. Ann turned off AI actions for Ada.";
    const sentence = refusedSentence("Add a note", "ada", said);
    expect(sentence).toBe(`Your decision on Add a note for ada was not applied. ${said}`);
    expect(sentence).not.toContain("You turned off");
  });
});
