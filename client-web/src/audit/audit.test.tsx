import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { queryString } from "../api/client";
import type { AuditRecordOut, ToolMetricsReport, ToolOut } from "../api/types";
import { originText } from "../cards/ToolCardHeader";
import { UndoButton } from "../cards/approval/UndoButton";
import { toolCall } from "../test/fixtures";
import { AuditProblem, AuditRow, peopleOf, type AuditFailure } from "./AuditPage";
import { MetricsPanel } from "./MetricsPanel";
import { duration, localInputToIso, OUTCOMES, outcomeText, outcomeWords } from "./words";

describe("audit words", () => {
  it("writes durations for people", () => {
    expect(duration(null)).toBe("–");
    expect(duration(850)).toBe("850 ms");
    expect(duration(4_200)).toBe("4.2 s");
    expect(duration(42_000)).toBe("42 s");
    expect(duration(240_000)).toBe("4 min");
    expect(duration(9_000_000)).toBe("2.5 h");
  });

  it("names outcomes and leaves unknown ones as they are", () => {
    expect(outcomeWords("edited")).toBe("Edited, then approved");
    expect(outcomeWords("allowed")).toBe("Ran without asking");
    expect(outcomeWords("mystery")).toBe("mystery");
  });

  it("names the MCP client a record's call came from (the Via column's tooltip)", () => {
    const record: Pick<AuditRecordOut, "client_name" | "channel"> = { client_name: "Claude Desktop", channel: "web" };
    expect(originText(record)).toBe("Requested by Claude Desktop via MCP");
    expect(originText({ client_name: null })).toBeNull();
  });

  it("builds query strings from the non-empty filters only", () => {
    expect(queryString({ tool: "notes.add", outcome: "", user: undefined, limit: 50 })).toBe("?tool=notes.add&limit=50");
    expect(queryString({})).toBe("");
    expect(localInputToIso("")).toBeUndefined();
    expect(localInputToIso("2026-12-01T10:00")).toMatch(/^2026-12-01T\d\d:00:00\.000Z$/);
  });
});

describe("UndoButton", () => {
  const noop = () => {};
  it("offers Undo on a succeeded write call and Redo once undone", () => {
    const available = renderToStaticMarkup(
      <UndoButton call={toolCall({ status: "succeeded", undo: { state: "available" } })} onUpdated={noop} />,
    );
    expect(available).toContain('data-testid="undo"');
    expect(available).not.toContain('data-testid="redo"');
    const undone = renderToStaticMarkup(
      <UndoButton call={toolCall({ status: "succeeded", undo: { state: "undone" } })} onUpdated={noop} />,
    );
    expect(undone).toContain("Undone: the changes were put back.");
    expect(undone).toContain('data-testid="redo"');
  });

  it("shows nothing for calls without an undo step or that did not succeed", () => {
    expect(renderToStaticMarkup(<UndoButton call={toolCall({ status: "succeeded" })} onUpdated={noop} />)).toBe("");
    expect(
      renderToStaticMarkup(<UndoButton call={toolCall({ status: "failed", undo: { state: "available" } })} onUpdated={noop} />),
    ).toBe("");
  });
});

describe("MetricsPanel", () => {
  it("draws one row per tool with its outcomes in words for screen readers", () => {
    const report: ToolMetricsReport = {
      since: "2026-11-24T00:00:00Z",
      until: "2026-12-01T00:00:00Z",
      tools: [
        {
          tool: "notes.add",
          title: "Add a note",
          employee: "assistant",
          calls: 4,
          approved: 2,
          edited: 1,
          picked: 0,
          rejected: 1,
          responded: 0,
          expired: 0,
          cancelled: 0,
          finished_late: 0,
          auto_allowed: 0,
          auto_allowed_by_grant: 0,
          median_decision_ms: 1500,
          p95_decision_ms: 4000,
        },
      ],
    };
    const html = renderToStaticMarkup(<MetricsPanel report={report} error={null} />);
    expect(html).toContain("Add a note");
    expect(html).toContain('aria-label="Approved: 2, Edited: 1, Rejected: 1"');
    const picks = renderToStaticMarkup(<MetricsPanel report={{ ...report, tools: [{ ...report.tools[0], edited: 0, picked: 1 }] }} error={null} />);
    expect(picks).toContain('aria-label="Approved: 2, Picked an option: 1, Rejected: 1"');
    expect(html).toContain("1.5 s");
    expect(html).toContain("4.0 s");
    expect(renderToStaticMarkup(<MetricsPanel report={{ ...report, tools: [] }} error={null} />)).toContain(
      "No tool calls in this time range.",
    );
  });

  it("counts answered and cancelled calls as outcomes instead of saying nobody decided", () => {
    // Scout's answered questions read "No decisions" beside a median wait: answers were left out.
    const row = {
      tool: "ask.choice", title: "Ask to choose", employee: "scout", calls: 3,
      approved: 0, edited: 0, picked: 0, rejected: 0, responded: 2, expired: 0, cancelled: 1, finished_late: 0,
      auto_allowed: 0, auto_allowed_by_grant: 0, median_decision_ms: 1900, p95_decision_ms: 1900,
    };
    const report: ToolMetricsReport = { since: "2026-11-24T00:00:00Z", until: "2026-12-01T00:00:00Z", tools: [row] };
    const html = renderToStaticMarkup(<MetricsPanel report={report} error={null} />);
    expect(html).toContain('aria-label="Answered: 2, Cancelled: 1"');
    expect(html).toContain("Answered</li>");
    expect(html).not.toContain("No decisions");
    const waiting = { ...row, calls: 1, responded: 0, cancelled: 0, median_decision_ms: null, p95_decision_ms: null };
    const pending = renderToStaticMarkup(<MetricsPanel report={{ ...report, tools: [waiting] }} error={null} />);
    expect(pending).toContain("Not decided yet");
  });
});

describe("MetricsPanel: calls that finished late", () => {
  it("counts a call whose tool returned after it was stopped or timed out, in words and in the legend", () => {
    const row = {
      tool: "notes.add", title: "Add a note", employee: "assistant", calls: 2,
      approved: 0, edited: 0, picked: 0, rejected: 0, responded: 0, expired: 0, cancelled: 1, finished_late: 2,
      auto_allowed: 2, auto_allowed_by_grant: 0, median_decision_ms: null, p95_decision_ms: null,
    };
    const report: ToolMetricsReport = { since: "2026-11-24T00:00:00Z", until: "2026-12-01T00:00:00Z", tools: [row] };
    const html = renderToStaticMarkup(<MetricsPanel report={report} error={null} />);
    expect(html).toContain('aria-label="Cancelled: 1, Finished after it was stopped or timed out: 2, Allowed by permission: 2"');
    expect(html).toContain('class="seg seg-finished-late" style="flex-grow:2"');
    expect(html).toContain("Finished after it was stopped or timed out</li>");
  });
});

describe("AuditRow", () => {
  const base: AuditRecordOut = {
    seq: 7,
    created_at: "2026-12-01T10:00:00Z",
    kind: "tool_call",
    tool_call_id: "call_1",
    conversation_id: "conv_1",
    employee: "assistant",
    tool: "notes.add",
    tool_title: "Add a note",
    owner_id: "u1",
    owner_name: "Ann",
    decider: "u1",
    decided_by: "Ann",
    decider_is_person: true,
    channel: "web",
    outcome: "approved",
    reason: null,
    proposed_args: { text: "milk" },
    executed_args: { text: "milk" },
    waited_ms: 1200,
    hash: "ab".repeat(32),
    client_name: null,
  };
  const row = (r: AuditRecordOut) => renderToStaticMarkup(<table><tbody><AuditRow record={r} admin employeeName="Ada" /></tbody></table>);

  it("lists every approver in the Person filter, not only the conversation's owner", () => {
    // Was: the Person filter listed only owners, so Ann and Bob, who approved local's call, were missing.
    const ann = { ...base, seq: 8, owner_id: "u0", owner_name: "local", decider: "u1", decided_by: "Ann", outcome: "approval" } as const;
    const bob = { ...ann, seq: 9, decider: "u2", decided_by: "Bob", outcome: "approved" } as const;
    const policy = { ...ann, seq: 10, decider: "policy:allow", decided_by: "Allowed by the tool's permission", decider_is_person: false, outcome: "allowed" } as const;
    expect(peopleOf([bob, ann, policy])).toEqual({ u0: "local", u1: "Ann", u2: "Bob" });
    expect(row(ann)).toContain("Approved, more needed");
  });

  it("links a tool call's record to its call", () => {
    const html = row(base);
    expect(html).toContain('data-kind="tool_call"');
    expect(html).toContain("Add a note");
    expect(html).toContain("#/c/conv_1/call/call_1");
  });

  it("shows an answer to a question as the card says it, never the JSON the client sent", () => {
    const fields = { type: "object", properties: { name: { type: "string", title: "Name" }, age: { type: "integer", title: "Age" } } };
    const form = row({ ...base, tool: "ask.form", tool_title: "Ask to fill in a form", outcome: "responded", reason: '{"name":"Ann","age":33}', proposed_args: { title: "Your details", fields }, executed_args: null });
    expect(form).toContain("“Name: Ann · Age: 33”");
    expect(form).not.toContain("{&quot;name&quot;");
    const several = row({ ...base, tool: "ask.choice", outcome: "responded", reason: '["tea","coffee"]', proposed_args: { question: "Which?", options: ["tea", "coffee", "juice"], multiple: true } });
    expect(several).toContain("“tea, coffee”");
    expect(row({ ...base, tool: "ask.confirm", outcome: "responded", reason: "yes" })).toContain("“yes”");
    expect(row({ ...base, outcome: "rejected", reason: '{"not":"an answer"}' })).toContain("“{&quot;not&quot;:&quot;an answer&quot;}”");
  });

  it("says a picked suggestion as the person chose it, with the option's title, not \"Edited, then approved\"", () => {
    const options = ["Miso", "Pixel"];
    const picked = { ...base, tool: "suggestions", tool_title: "Suggestions", outcome: "edited" as const, proposed_args: { question: "Which name?", options }, executed_args: { question: "Which name?", options, option: "Pixel" } };
    const html = row(picked);
    expect(html).toContain("Chose “Pixel”");
    expect(html).not.toContain("Edited, then approved");
    expect(html).toContain('data-outcome="edited"'); // the filter's value stays the record's
    // A tool of its own with a choice card whose option has titles: the title is said.
    const pick = { card: "choice", input_schema: { type: "object", properties: { options: { type: "array" }, option: { type: "string", oneOf: [{ const: "pro", title: "Pro plan" }] } } } } as Pick<ToolOut, "card" | "input_schema">;
    const titled = { ...picked, tool: "plans.pick", proposed_args: { options: ["pro"] }, executed_args: { options: ["pro"], option: "pro" } };
    expect(outcomeText(titled, pick)).toBe("Chose “Pro plan”");
    expect(outcomeText({ ...titled, executed_args: { options: ["pro"] } }, pick)).toBe("Edited, then approved");
    // An edit of any other tool is an edit.
    expect(outcomeText({ ...base, outcome: "edited", executed_args: { text: "oat milk", option: "x" } })).toBe("Edited, then approved");
    expect(outcomeText({ ...base, outcome: "approved" })).toBe("Approved");
  });

  it("says a pick recorded as its own outcome as the person chose it, and lists it in the filter", () => {
    const options = ["Miso", "Pixel"];
    const picked = { ...base, tool: "suggestions", tool_title: "Suggestions", outcome: "picked" as const, proposed_args: { question: "Which name?", options }, executed_args: { question: "Which name?", options, option: "Pixel" } };
    const html = row(picked);
    expect(html).toContain("Chose “Pixel”");
    expect(html).toContain('data-outcome="picked"');
    expect(outcomeText({ ...picked, executed_args: null })).toBe("Picked an option");
    expect(OUTCOMES).toContain("picked");
    expect(outcomeWords("picked")).toBe("Picked an option");
  });

  it("shows a token's creation and revocation in words, without a call to open", () => {
    const created = row({ ...base, kind: "token", tool_call_id: "tok_1", conversation_id: "", employee: "", tool: "", tool_title: "MCP token", outcome: "created", reason: "Claude Desktop", proposed_args: null, executed_args: null, waited_ms: 0 });
    expect(created).toContain('data-kind="token"');
    expect(created).toContain("MCP token");
    expect(created).toContain("Token created");
    expect(created).toContain("“Claude Desktop”");
    expect(created).not.toContain("Open the call");
    expect(outcomeWords("revoked")).toBe("Token revoked");
    expect(row({ ...base, kind: "token", outcome: "revoked", channel: "cli", decided_by: "Command line (interlock tokens)" })).toContain("Command line");
  });
});

describe("the audit page's problems", () => {
  it("says a failed load with a heading, the reason, the next step and Try again", () => {
    const failure: AuditFailure = { error: { status: 500, code: "internal", message: "The database is not answering." }, what: "load" };
    const html = renderToStaticMarkup(<AuditProblem failure={failure} onRetry={() => {}} />);
    expect(html).toMatch(/<h2[^>]*>The records could not be loaded<\/h2>/);
    expect(html).toContain("The database is not answering.");
    expect(html).toContain("If it keeps happening, tell your admin.");
    expect(html).toMatch(/<button[^>]*>Try again<\/button>/);
    expect(html).not.toContain("internal");
  });

  it("says the server could not be reached as other pages do", () => {
    const failure: AuditFailure = { error: { status: 0, code: "network", message: "x" }, what: "export" };
    expect(renderToStaticMarkup(<AuditProblem failure={failure} onRetry={() => {}} />)).toContain("Cannot reach the server");
  });
});
