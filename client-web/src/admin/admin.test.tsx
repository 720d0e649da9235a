import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ApiError } from "../api/client";
import type { SkillOut, ToolOut } from "../api/types";
import { EmployeePicker } from "../components/EmployeePicker";
import { employee } from "../test/employees";
import {
  changes,
  createBody,
  draftOf,
  emptyDraft,
  errorLines,
  fieldsOf,
  hasChanges,
  lines,
  permissionChoice,
  skillNames,
  toggled,
  withPermission,
  minutesProblem,
} from "./draft";
import { SkillsPanel } from "./SkillsPanel";
import { ToolPermissions } from "./ToolPermissions";

describe("employee draft", () => {
  it("round-trips an employee through the editor's fields", () => {
    const e = employee();
    expect(fieldsOf(draftOf(e))).toEqual({
      name: e.name,
      avatar: e.avatar,
      title: e.title,
      about: e.about,
      system_prompt: e.system_prompt,
      model: null,
      greeting: e.greeting,
      starter_prompts: e.starter_prompts,
      pinned_skills: e.pinned_skills,
      available_skills: e.available_skills,
      tool_overrides: e.tool_overrides,
      disabled: false,
      approvers: [],
      approval_timeout_s: null,
      tool_approvals: {},
    });
    expect(changes(e, draftOf(e))).toEqual({});
  });

  it("edits approvers and the approval timeout in minutes", () => {
    const e = employee({ approvers: ["ana"], approval_timeout_s: 5400 });
    const d = draftOf(e);
    expect(d.approvers).toBe("ana");
    expect(d.approval_minutes).toBe("90");
    expect(changes(e, d)).toEqual({});
    const edited = { ...d, approvers: "ana\n group:finance \n", approval_minutes: "2.5" };
    expect(changes(e, edited)).toEqual({ approvers: ["ana", "group:finance"], approval_timeout_s: 150 });
    expect(changes(e, { ...d, approval_minutes: "" })).toEqual({ approval_timeout_s: null });
  });

  it("sends only the changed fields", () => {
    const e = employee();
    const d = { ...draftOf(e), title: "Interviewer", starters: " one \n\n two\n", model: "  " };
    const patch = changes(e, d);
    expect(patch).toEqual({ title: "Interviewer", starter_prompts: ["one", "two"] });
    expect(hasChanges(patch)).toBe(true);
  });

  it("compares tool overrides regardless of key order and sends the whole map when it changes", () => {
    const e = employee({ tool_overrides: { a: "ASK", b: "DENY" } });
    expect(changes(e, { ...draftOf(e), tool_overrides: { b: "DENY", a: "ASK" } })).toEqual({});
    const d = { ...draftOf(e), tool_overrides: withPermission(e.tool_overrides, "a", "default") };
    expect(changes(e, d)).toEqual({ tool_overrides: { b: "DENY" } });
  });

  it("model: empty means the server's model (null)", () => {
    const e = employee({ model: "openai:gpt-4o" });
    expect(changes(e, { ...draftOf(e), model: "" })).toEqual({ model: null });
  });

  it("creates with the slug and every field", () => {
    const body = createBody({ ...emptyDraft(), slug: " bot ", name: "Bot", starters: "hi" });
    expect(body).toMatchObject({ slug: "bot", name: "Bot", starter_prompts: ["hi"], model: null, disabled: false });
  });

  it("edits permissions, skills and lines", () => {
    expect(permissionChoice({ "notes.add": "DENY" }, "notes.add")).toBe("DENY");
    expect(permissionChoice({}, "notes.add")).toBe("default");
    expect(permissionChoice({}, "constructor")).toBe("default");
    expect(withPermission({}, "notes.add", "ALLOW")).toEqual({ "notes.add": "ALLOW" });
    expect(withPermission({ "notes.add": "ALLOW" }, "notes.add", "default")).toEqual({});
    expect(toggled(["a"], "b", true)).toEqual(["a", "b"]);
    expect(toggled(["a", "b"], "a", false)).toEqual(["b"]);
    expect(toggled(["a"], "a", true)).toEqual(["a"]);
    expect(lines("a\r\n\n b ")).toEqual(["a", "b"]);
  });

  it("lists loaded skills, then named ones that did not load", () => {
    expect(skillNames(["ask", "notes"], { pinned_skills: ["ask", "broken"], available_skills: ["*", "gone", "broken"] })).toEqual([
      "ask",
      "notes",
      "broken",
      "gone",
    ]);
  });

  it("explains a refused save with the field errors", () => {
    const err = new ApiError(422, {
      code: "invalid_request",
      message: "The employee is not valid.",
      details: { errors: [{ path: ["model"], message: "model must look like provider:model", rule: "value_error" }, { path: ["body", "name"], message: "Field required" }] },
    });
    expect(errorLines(err)).toEqual(["The employee is not valid.", "Model: must look like provider:model", "Name: Field required"]);
    // The raw keys reached the page: "slug: slug: lowercase ...", "starter_prompts: ...".
    const listErr = new ApiError(422, {
      code: "invalid_request",
      message: "The request is not valid.",
      details: { errors: [{ path: ["body", "starter_prompts", 2], message: "Must not be empty." }, { path: ["body", "tool_overrides", "notes.add"], message: "Must be 'ALLOW', 'ASK' or 'DENY'" }] },
    });
    expect(errorLines(listErr).slice(1)).toEqual(["Starter prompts › 3: Must not be empty.", "Tool permissions › notes.add: Must be 'ALLOW', 'ASK' or 'DENY'"]);
    expect(errorLines(new ApiError(409, { code: "employee_exists", message: "The employee 'scout' exists." }))).toEqual([
      "The employee 'scout' exists.",
    ]);
  });
});

describe("the approval timeout field", () => {
  it("refuses what is not a number of minutes instead of saving the server's default", () => {
    // "abc" was sent as null: the employee was saved with the 24 h default and no word said.
    expect(minutesProblem("abc")).toContain("“abc” is not a number of minutes");
    expect(minutesProblem("-3")).toContain("from above 0 to 43,200 (30 days)");
    expect(minutesProblem("0")).not.toBeNull();
    expect(minutesProblem("43201")).not.toBeNull();
    expect(minutesProblem("")).toBeNull();
    expect(minutesProblem(" 90 ")).toBeNull();
    expect(minutesProblem("43200")).toBeNull();
  });
});

describe("ToolPermissions", () => {
  const tool = (name: string, permission: string, over: Partial<ToolOut> = {}) =>
    ({ name, title: name, permission, available: true, reason: null, ...over }) as ToolOut;

  it("renders a segmented control per tool with the current choice checked", () => {
    const out = renderToStaticMarkup(
      <ToolPermissions tools={[tool("notes.add", "ASK"), tool("notes.list", "ALLOW")]} overrides={{ "notes.add": "DENY" }} disabled={false} onChange={() => {}} />,
    );
    expect(out.match(/data-testid="tool-permission"/g)).toHaveLength(2);
    expect(out).toMatch(/data-testid="tool-permission" data-tool="notes.add" data-value="DENY"/);
    expect(out).toMatch(/data-testid="tool-permission" data-tool="notes.list" data-value="default"/);
    for (const v of ["ALLOW", "ASK", "DENY", "default"]) expect(out.match(new RegExp(`data-value="${v}"><input`, "g"))).toHaveLength(2);
    expect(out).toMatch(/class="segment selected" data-value="DENY"><input type="radio"[^>]* checked="" value="DENY"/);
    expect(out).toContain("Default (ALLOW)");
  });

  it("offers no ALLOW for a question tool and says it always asks (tryout: ask.choice showed ALLOW selected, yet asked)", () => {
    const out = renderToStaticMarkup(
      <ToolPermissions
        tools={[tool("ask.choice", "ASK", { card: "choice", title: "Ask to choose" }), tool("notes.add", "ASK")]}
        overrides={{ "ask.choice": "ALLOW" }}
        disabled={false}
        onChange={() => {}}
      />,
    );
    const [question, write] = out.split('<li class="tool-permission-row"').slice(1);
    expect(question).toContain("Always asks: a question waits for the person&#x27;s answer. Its saved Allow has no effect.");
    expect(question).not.toMatch(/data-value="ALLOW"><input/);
    expect(question).not.toContain("selected");
    expect(write).toMatch(/data-value="ALLOW"><input/);
    expect(write).not.toContain("Always asks");
  });

  it("says why a tool of a down MCP server is unavailable, as the MCP servers panel does", () => {
    const reason = "The MCP server 'files' is not available: nothing answers at its address. Interlock tries again in 4 s.";
    const out = renderToStaticMarkup(
      <ToolPermissions
        tools={[tool("mcp.files.read", "ASK", { available: false, reason }), tool("notes.add", "ASK")]}
        overrides={{}}
        disabled={false}
        onChange={() => {}}
      />,
    );
    expect(out).toContain(`<span class="error small"> Unavailable: ${reason.replace(/'/g, "&#x27;")}</span>`);
    expect(out.match(/Unavailable:/g)).toHaveLength(1);
    expect(out).toMatch(/data-available="false"[^]*mcp.files.read/);
  });
});

describe("EmployeePicker", () => {
  it("shows each employee with its starter prompts", () => {
    const out = renderToStaticMarkup(
      <EmployeePicker employees={[employee(), employee({ slug: "assistant", name: "Ada", starter_prompts: [] })]} busy={false} onStart={() => {}} />,
    );
    expect(out).toContain('data-testid="employee-picker"');
    expect(out.match(/data-testid="employee-option"/g)).toHaveLength(2);
    expect(out).toContain('data-slug="assistant"');
    expect(out.match(/data-testid="starter-prompt"/g)).toHaveLength(2);
    expect(out).toContain("Intake interviewer");
    expect(out).toContain("Asks structured questions.");
  });
});

describe("SkillsPanel", () => {
  it("says why a skill's tool cannot run now (its MCP server is down)", () => {
    const skill = { name: "lookup", description: "Echo words.", version: null, tags: [], status: "loaded", error: null, tools: ["lookup.echo", "lookup.other"], commands: [], path: null } as unknown as SkillOut;
    const reason = "The MCP server 'remote' is not available: nothing answers at its address. Interlock tries again in 2 s.";
    const tools = {
      "lookup.echo": { name: "lookup.echo", available: false, reason } as ToolOut,
      "lookup.other": { name: "lookup.other", available: true, reason: null } as ToolOut,
    };
    const html = renderToStaticMarkup(<SkillsPanel skills={[skill]} tools={tools} />);
    expect(html).toContain(`<code>lookup.echo</code><span class="error"> (unavailable: ${reason.replace(/'/g, "&#x27;")})</span>`);
    expect(html.match(/unavailable/g)).toHaveLength(1);
    expect(renderToStaticMarkup(<SkillsPanel skills={[skill]} />)).not.toContain("unavailable");
  });
});
