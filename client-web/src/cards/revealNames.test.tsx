/**
 * A name or title from the server (an employee's, a remote MCP server's, a skill's, a tool's,
 * a command's) holding a bidirectional override reads `[U+202E]` in every view that shows it,
 * as the README says. Found in a tryout: the Admin page showed the MCP server "\u202eRemote"
 * as "etomeR".
 */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { AuditRecordOut, McpServerOut, SkillOut, ToolOut } from "../api/types";
import { EmployeeList } from "../admin/EmployeeList";
import { McpServersPanel } from "../admin/McpServersPanel";
import { SkillsPanel } from "../admin/SkillsPanel";
import { SkillChecklist } from "../admin/SkillChecklist";
import { ToolPermissions } from "../admin/ToolPermissions";
import { AuditRow } from "../audit/AuditPage";
import { ConversationHeader } from "../components/ConversationHeader";
import { EmployeePicker } from "../components/EmployeePicker";
import { SlashMenu } from "../components/SlashMenu";
import { initialState } from "../state/reducer";
import { employee } from "../test/employees";

const RLO = "\u202e";
const hidden = (s: string) => `${RLO}${s}`;

const gee = employee({
  slug: "gee",
  name: hidden("Gee"),
  title: hidden("Writer"),
  about: hidden("Writes things."),
  starter_prompts: [hidden("Draft a memo")],
});

const server: McpServerOut = {
  name: "remote",
  title: hidden("Remote"),
  origin: "admin",
  transport: "http",
  url: "https://remote.example.com/mcp",
  command: null,
  connection: "remote",
  state: "ready",
  error: null,
  retry_in_s: null,
  protocol_version: "2026-07-28",
  tools: [
    {
      name: "mcp.remote.search",
      provider_name: "mcp_remote_search",
      remote_name: "search",
      title: hidden("Search"),
      permission: "ASK",
      write: false,
      available: false,
      reason: hidden("It is down."),
    },
  ],
} as McpServerOut;

const skill = {
  name: "memo",
  description: hidden("Memos."),
  version: null,
  tags: [],
  status: "loaded",
  error: null,
  tools: ["memo.write"],
  commands: [{ skill: "memo", command: "memo", title: hidden("Write a memo") }],
  path: null,
} as unknown as SkillOut;

const tool = { name: "memo.write", title: hidden("Write a memo"), permission: "ASK", available: true, reason: null } as ToolOut;

/** Each view's markup, with the name it shows. */
const views: [string, () => string][] = [
  ["Admin: employee list", () => renderToStaticMarkup(<EmployeeList employees={[gee]} selected={null} onSelect={() => {}} />)],
  ["Admin: MCP servers", () => renderToStaticMarkup(<McpServersPanel servers={[server]} onRefreshed={() => {}} />)],
  ["Admin: skills", () => renderToStaticMarkup(<SkillsPanel skills={[skill]} />)],
  ["Admin: employee's skills", () => renderToStaticMarkup(<SkillChecklist skills={[{ ...skill, name: hidden("memo") }]} draft={{ ...gee, pinned_skills: [], available_skills: [] } as never} disabled={false} onChange={() => {}} />)],
  ["Admin: tool permissions", () => renderToStaticMarkup(<ToolPermissions tools={[tool]} overrides={{}} disabled={false} onChange={() => {}} />)],
  ["Employee picker", () => renderToStaticMarkup(<EmployeePicker employees={[gee]} busy={false} onStart={() => {}} />)],
  [
    "Conversation header",
    () => renderToStaticMarkup(<ConversationHeader title={hidden("Plans")} state={{ ...initialState, employee: "gee" }} employee={gee} offline={false} stream="open" />),
  ],
  ["Slash commands", () => renderToStaticMarkup(<SlashMenu id="m" commands={[{ skill: "memo", command: "memo", title: hidden("Write a memo"), description: hidden("Writes.") } as never]} active={0} onPick={() => {}} onHover={() => {}} />)],
  [
    "Audit",
    () =>
      renderToStaticMarkup(
        <table>
          <tbody>
            <AuditRow record={{ seq: 1, kind: "tool_call", tool: "memo.write", tool_title: hidden("Write"), decided_by: hidden("ann"), owner_name: "ann", outcome: "succeeded", created_at: "2026-01-01T00:00:00Z", channel: "chat" } as unknown as AuditRecordOut} admin employeeName={hidden("Gee")} />
          </tbody>
        </table>,
      ),
  ],
];

describe("names and titles from the server", () => {
  it.each(views)("read [U+202E] in %s", (_view, render) => {
    // A form control's value is what is sent back, never read: it keeps the text itself.
    const html = render().replace(/ value="[^"]*"/g, "");
    expect(html).not.toContain(RLO);
    expect(html).toContain("[U+202E]");
  });
});
