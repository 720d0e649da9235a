/**
 * A bidirectional control or a control character a tool, a model or a person wrote reads
 * `[U+202E]`, `[U+001B]` wherever a card, the Approvals view or the Audit page shows it (the
 * README's rule, the server's `text.reveal_hidden`), and a result's size counts characters
 * (code points) as the server's `result_chars` does.
 */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ApprovalOut, AuditRecordOut } from "../api/types";
import { AuditRow } from "../audit/AuditPage";
import { ApproverItem } from "../components/ApproverItem";
import { JsonView } from "../components/JsonView";
import { argsText } from "../permissions/describe";
import { OperationLog } from "../components/OperationLog";
import { ClippedText } from "../components/ToolCallRow";
import { FoldedText } from "../components/FoldedText";
import { initialState, reducer } from "../state/reducer";
import { detail, message, toolCall } from "../test/fixtures";
import { answerWords } from "./answerWords";
import { decisionText } from "./DecisionSummary";
import { Markdown } from "../components/Markdown";
import { ArgFields } from "./fields/ArgFields";
import { fieldTitles } from "./SchemaForm";
import { argsSummary } from "./fields/schemaFields";
import { argsChanges, lineDiff } from "./diff/argsDiff";
import { ArgsDiff } from "./diff/ArgsDiff";
import { charCount, reveal, revealJson, sliceChars } from "./reveal";

const RLO = "\u202e";
const NOTES_ADD = { type: "object", properties: { text: { type: "string", title: "Text" } } };

/** The text a page shows for `html` (tags dropped, entities read). */
function shown(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

function approverEntry(call: ApprovalOut["tool_call"]): string {
  const item: ApprovalOut = {
    tool_call: call,
    conversation: {
      id: "conv_1",
      title: "ann's conversation",
      employee: "assistant",
      status: "paused",
      pending: 1,
      channel: "chat",
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z",
    },
    role: "approver",
    requested_by: "ann",
    message: `Please note: from ${RLO}Hal conv`,
  };
  const tool = { name: "notes.add", input_schema: NOTES_ADD } as unknown as Parameters<typeof ApproverItem>[0]["tool"];
  return renderToStaticMarkup(<ApproverItem item={item} tool={tool} tools={{}} employee={undefined} myId="user_bob" onDecided={() => {}} onRefused={() => {}} />);
}

describe("the rule", () => {
  it("writes bidi controls and control characters as [U+XXXX], keeps tabs and line breaks", () => {
    expect(reveal(`from ${RLO}Hal conv`)).toBe("from [U+202E]Hal conv");
    expect(reveal("\x01\x1b[31mred\x1b[0m\x7f\x85 a\tb\r\nc \u2067x\u2069")).toBe(
      "[U+0001][U+001B][31mred[U+001B][0m[U+007F][U+0085] a\tb\r\nc [U+2067]x[U+2069]",
    );
    expect(reveal(reveal(`a${RLO}b`))).toBe("a[U+202E]b");
    expect(reveal("שלום\u200f 🦊 e\u0301")).toBe("שלום\u200f 🦊 e\u0301");
    expect(revealJson(JSON.stringify({ t: `a${RLO}\x1b\x85` }))).toBe('{"t":"a\\u202e\\u001b\\u0085"}');
  });
});

describe("argument values on a card", () => {
  it("reads revealed in the field list, the row's one line and the Approvals view (was “from vnoc laH”)", () => {
    const fields = shown(renderToStaticMarkup(<ArgFields schema={NOTES_ADD} args={{ text: `from ${RLO}Hal conv` }} />));
    expect(fields).toContain("from [U+202E]Hal conv");
    expect(fields).not.toContain(RLO);
    expect(argsSummary(NOTES_ADD, { text: `a ${RLO}b`, [`k${RLO}ey`]: 1 })).toBe("Text: a [U+202E]b · K[U+202E]ey: 1");
    const entry = shown(approverEntry(toolCall({ name: "notes.add", status: "interrupted", proposed_args: { text: `from ${RLO}Hal conv` } })));
    expect(entry).toContain("from [U+202E]Hal conv");
    expect(entry).toContain("Please note: from [U+202E]Hal conv");
    expect(entry).not.toContain(RLO);
  });

  it("reads revealed in an edit's diff (was “buy milk → buy oat milk live”)", () => {
    const [change] = argsChanges(NOTES_ADD, { text: "buy milk" }, { text: `buy oat milk ${RLO}evil` });
    expect([change.before, change.after]).toEqual(["buy milk", "buy oat milk [U+202E]evil"]);
    const html = shown(renderToStaticMarkup(<ArgsDiff schema={NOTES_ADD} proposed={{ text: "buy milk" }} executed={{ text: `buy oat milk ${RLO}evil` }} />));
    expect(html).toContain("buy milk → buy oat milk [U+202E]evil");
    expect(lineDiff("a\nb", `a\nb${RLO}c\x1b`)?.map((l) => l.text)).toEqual(["a", "b", "b[U+202E]c[U+001B]"]);
    // Unchanged values are still unchanged, however they read.
    expect(argsChanges(NOTES_ADD, { text: `x${RLO}` }, { text: `x${RLO}` })).toEqual([]);
  });

  it("reads revealed in View JSON, still as JSON", () => {
    const html = renderToStaticMarkup(<JsonView value={{ text: `from ${RLO}Hal conv\x85` }} />);
    expect(html).toContain("from \\u202eHal conv\\u0085");
    expect(html).not.toContain(RLO);
  });

  it("reads revealed in a question's answer and a reject reason", () => {
    const call = toolCall({
      name: "ask.choice",
      decision: { id: "d", type: "respond", user_id: "u", user_name: "Ann", args: null, message: JSON.stringify([`${RLO}tea`, "coffee"]), proposed_args: null, created_at: "2026-01-01T00:00:00Z" },
    });
    expect(answerWords(call)).toBe("[U+202E]tea, coffee");
    const reject = { id: "d", type: "reject" as const, user_id: "u", user_name: "Ann", args: null, message: `no ${RLO}way`, proposed_args: null, created_at: "2026-01-01T00:00:00Z" };
    expect(decisionText(reject)).toBe("Rejected: no [U+202E]way");
  });
});

describe("a form's labels and a model's reply", () => {
  it("read revealed", () => {
    const ui = fieldTitles({ properties: { name: { type: "string", title: `Na${RLO}me`, description: "\x1bhelp" }, plan: { enum: [`p${RLO}ro`] } } });
    expect(ui.name).toMatchObject({ "ui:title": "Na[U+202E]me", "ui:description": "[U+001B]help" });
    expect(ui.plan).toMatchObject({ "ui:enumNames": ["P[U+202E]ro"] });
    const html = renderToStaticMarkup(<Markdown text={"returned: \x01\x1b[31mred\x1b[0m"} />);
    expect(html).toContain("returned: [U+0001][U+001B][31mred[U+001B][0m");
  });
});

describe("a result on a card", () => {
  it("reads revealed in the result box (was “Added note #6: buy oat milk live”)", () => {
    const html = shown(renderToStaticMarkup(<ClippedText text={`Added note #6: buy oat milk ${RLO}evil`} />));
    expect(html).toContain("Added note #6: buy oat milk [U+202E]evil");
    expect(html).not.toContain(RLO);
  });

  it("shows control characters as [U+001B] (was “�[31mred�[0m”)", () => {
    const html = shown(renderToStaticMarkup(<ClippedText text={"\x01\x1b[31mred\x1b[0m"} />));
    expect(html).toContain("[U+0001][U+001B][31mred[U+001B][0m");
    const folded = shown(renderToStaticMarkup(<FoldedText text={`${"x".repeat(30_000)}`.replace(/^x/, "\x1b")} title="Result" fileName="r.txt" />));
    expect(folded).toContain("[U+001B]xx");
  });

  it("counts characters as the server does: 740 with emoji, not 750 UTF-16 units", () => {
    const text = "🦊".repeat(10) + "a".repeat(730);
    expect(text.length).toBe(750);
    expect(charCount(text)).toBe(740);
    const html = renderToStaticMarkup(<ClippedText text={text} />);
    expect(html).toContain("Show all (740 characters)");
    expect(html).not.toContain("\ud83e…"); // never half an emoji before the "…"
    expect(sliceChars("🦊🦊🦊", 2)).toBe("🦊🦊");
    const big = "🦊".repeat(25_000);
    expect(renderToStaticMarkup(<FoldedText text={big} title="Result" fileName="r.txt" />)).toContain("Show all (25,000 characters)");
  });
});

describe("the Permissions page", () => {
  it("reveals a grant's argument values", () => {
    expect(argsText({ text: `from ${RLO}Hal conv` })).toBe("Only with text: from [U+202E]Hal conv");
  });
});

describe("the Audit page and the operation log", () => {
  it("reveal a reason, a tool title and View JSON", () => {
    const record = {
      seq: 1,
      kind: "tool_call",
      created_at: "2026-01-01T00:00:00Z",
      tool: "notes.add",
      tool_title: `Add ${RLO}note`,
      employee: "assistant",
      outcome: "rejected",
      decided_by: "ann",
      owner_name: "ann",
      channel: "web",
      client_name: null,
      reason: `no ${RLO}way`,
      conversation_id: "c",
      tool_call_id: "t",
      proposed_args: { text: `from ${RLO}Hal conv` },
      executed_args: null,
      hash: "h",
    } as unknown as AuditRecordOut;
    const html = shown(renderToStaticMarkup(<table><tbody><AuditRow record={record} admin={false} employeeName="Ada" /></tbody></table>));
    expect(html).toContain("Add [U+202E]note");
    expect(html).toContain("“no [U+202E]way”");
    expect(html).not.toContain(RLO);
  });

  it("reveal a call's summary and result in the operation log", () => {
    const call = toolCall({ name: "notes.add", status: "succeeded", proposed_args: { text: `from ${RLO}Hal conv` }, result_text: "\x1b[31mAdded" });
    const state = reducer(initialState, {
      type: "reset",
      detail: detail({ messages: [message({ id: 2, role: "assistant", content: "", tool_calls: [call] })] }),
    });
    const html = shown(renderToStaticMarkup(<OperationLog state={state} />));
    expect(html).toContain("from [U+202E]Hal conv");
    expect(html).toContain("[U+001B][31mAdded");
    expect(html).not.toContain(RLO);
  });
});
