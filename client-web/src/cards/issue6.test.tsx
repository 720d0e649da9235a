/** Issue 6: readable fields, diffs, status words, confirmation cards, frontend tools, batches. */
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it } from "vitest";
import { ApiError } from "../api/client";
import type { ToolCallOut, ToolOut, ToolResultIn } from "../api/types";
import { FOLD_CHARS, needsFold, previewOf } from "../components/FoldedText";
import { decision } from "../test/decisions";
import { cardProps, toolCall } from "../test/fixtures";
import { ApprovalCard } from "./approval/ApprovalCard";
import { batchOf } from "./batch/batch";
import { browserSelection, browserTimeZone, setSelectionForTest } from "./browser/browserTools";
import { decidedBy, DecisionSummary } from "./DecisionSummary";
import { argsChanges, foldUnchanged, lineDiff } from "./diff/argsDiff";
import { DocumentCard, documentDecision, hasUnsavedEdits } from "./document/DocumentCard";
import { ArgFields, foldText } from "./fields/ArgFields";
import { argsSummary, humanise, schemaFields } from "./fields/schemaFields";
import { forgetStarted, invokeToBody, runFrontendCall } from "./frontend/runner";
import { ToolInvokeError } from "./frontend/types";
import { cardFor, invokerFor, isQuestion, registerTool } from "./registry";
import { StatusSentence } from "./status/StatusBadge";
import { notRun, statusWords } from "./status/status";

const html = (node: React.ReactElement) => renderToStaticMarkup(node);

const schema = {
  type: "object",
  properties: {
    title: { type: "string", title: "Title", description: "Shown as the heading" },
    due_date: { type: "string" },
    tags: { type: "array", items: { type: "string" } },
    owner: { type: "object", properties: { firstName: { type: "string" }, age: { type: "integer", title: "Age (years)" } } },
    urgent: { type: "boolean" },
  },
};

const props = cardProps;

describe("schema fields", () => {
  it("labels by title, else the key humanised; no help from description (written for the model); schema order then extras", () => {
    const fields = schemaFields(schema, { extra_key: 1, urgent: true, tags: ["a", "b"], title: "Hi", due_date: "", owner: { age: 3, firstName: "Ada" } });
    expect(fields.map((f) => [f.key, f.label, f.kind])).toEqual([
      ["title", "Title", "text"],
      ["due_date", "Due date", "empty"],
      ["tags", "Tags", "list"],
      ["owner", "Owner", "object"],
      ["urgent", "Urgent", "boolean"],
      ["extra_key", "Extra key", "number"],
    ]);
    expect(JSON.stringify(fields)).not.toContain("Shown as the heading");
    expect(fields[2].children.map((c) => c.text)).toEqual(["a", "b"]);
    expect(fields[3].children.map((c) => [c.label, c.text])).toEqual([
      ["First name", "Ada"],
      ["Age (years)", "3"],
    ]);
    expect(fields[4].text).toBe("Yes");
  });

  it("humanises keys", () => {
    expect(humanise("due_date")).toBe("Due date");
    expect(humanise("noteId")).toBe("Note ID");
    expect(humanise("id")).toBe("ID");
    expect(humanise("customer_ids")).toBe("Customer IDs");
    expect(humanise("api_url")).toBe("API URL");
    expect(humanise("idea")).toBe("Idea");
    expect(humanise("x-ray.mode")).toBe("X ray mode");
    expect(humanise("")).toBe("");
  });

  it("renders lists, nested objects and multi-line text as text, never HTML", () => {
    const hostile = { type: "object", properties: { body: { type: "string", title: "<img src=x onerror=alert(1)>" } } };
    const out = html(<ArgFields schema={hostile} args={{ body: "line 1\nline <b>2</b>", tags: ["x"], nested: { deep: { a: 1 } } }} />);
    expect(out).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(out).not.toContain("<img");
    expect(out).not.toContain("<b>");
    expect(out).toContain('<pre class="arg-text" data-testid="arg-text" tabindex="0">line 1\nline &lt;b&gt;2&lt;/b&gt;</pre>');
    expect(out).toContain('<ul class="arg-list"><li><span class="arg-scalar">x</span></li></ul>');
    expect(out.match(/<dl class="arg-fields"/g)).toHaveLength(3); // nested objects indent as nested lists
  });

  it("folds a 200-line value with Show all, keeping every line for the scrollable view", () => {
    const text = Array.from({ length: 200 }, (_, i) => `line ${i + 1}`).join("\n");
    const fold = foldText(text);
    expect(fold?.lines).toBe(200);
    expect(fold?.preview.split("\n")).toHaveLength(12);
    const out = html(<ArgFields schema={{}} args={{ body: text }} />);
    expect(out).toContain("Show all (200 lines, ");
    expect(foldText("short")).toBeNull();
  });

  it("summarises args on one line for a row", () => {
    expect(argsSummary(schema, { title: "Hi", tags: ["a", "b"], owner: { firstName: "Ada" } })).toBe("Title: Hi · Tags: a, b · Owner: First name: Ada");
    expect(argsSummary({}, { text: "a\n  b" })).toBe("Text: a b");
    expect(argsSummary({}, { text: "x".repeat(300) }, 20)).toHaveLength(20);
  });
});

describe("diff", () => {
  it("lists changed fields only, labelled, in schema order; long text as a line diff", () => {
    const before = { title: "Hi", tags: ["a"], urgent: false, due_date: "soon" };
    const after = { title: "Hello", tags: ["a"], urgent: true, owner: { age: 1 } };
    const changes = argsChanges(schema, before, after);
    expect(changes.map((c) => [c.key, c.label, c.kind, c.before, c.after])).toEqual([
      ["title", "Title", "changed", "Hi", "Hello"],
      ["due_date", "Due date", "removed", "soon", ""],
      ["owner", "Owner", "added", "", '{\n  "age": 1\n}'],
      ["urgent", "Urgent", "changed", "false", "true"],
    ]);
    expect(changes[0].lines).toBeNull();
    expect(changes[2].lines).not.toBeNull();
    const long = argsChanges({}, { body: "a\nb\nc" }, { body: "a\nB\nc\nd" });
    expect(long[0].lines).toEqual([
      { kind: "same", text: "a" },
      { kind: "removed", text: "b" },
      { kind: "added", text: "B" },
      { kind: "same", text: "c" },
      { kind: "added", text: "d" },
    ]);
  });

  it("folds long unchanged runs around the changes", () => {
    const before = Array.from({ length: 50 }, (_, i) => `l${i}`).join("\n");
    const after = before.replace("l25", "changed");
    const lines = lineDiff(before, after);
    expect(lines).not.toBeNull();
    const hunks = foldUnchanged(lines ?? [], 2);
    expect(hunks.map((h) => (h.kind === "gap" ? `gap ${h.count}` : `lines ${h.lines.length}`))).toEqual(["gap 23", "lines 6", "gap 22"]);
  });

  it("shows the edit diff after a decision (and who decided, when), never 'Executed with'", () => {
    const call = toolCall({
      status: "succeeded",
      proposed_args: { text: "buy milk" },
      executed_args: { text: "buy <i>oat</i> milk" },
      decision: decision({ type: "edit", args: { text: "buy <i>oat</i> milk" }, proposed_args: { text: "buy milk" }, user_name: "ann", created_at: "2025-01-01T10:42:00Z" }),
    });
    const out = html(<DecisionSummary call={call} schema={{ properties: { text: { title: "Note text" } } }} />);
    expect(out).toContain(">Note text</dt>");
    expect(out).toContain('<del class="diff-removed" data-testid="diff-before">buy milk</del>');
    expect(out).toContain('<ins class="diff-added" data-testid="diff-after">buy &lt;i&gt;oat&lt;/i&gt; milk</ins>');
    expect(out).toContain('data-testid="decision-by">by ann at ');
    expect(out).not.toContain("Executed with");
    expect(decidedBy(decision({ user_name: "bob", created_at: "2025-01-01T10:42:00Z" }), new Date("2025-01-01T12:00:00Z"))).toMatch(/^by bob at \S+/);
  });
});

describe("status words", () => {
  const words = (over: Partial<ToolCallOut>) => statusWords(toolCall(over));

  it("words every status for people", () => {
    expect(words({ status: "interrupted" }).label).toBe("Waiting for you");
    expect(words({ status: "interrupted", decision: decision({ type: "approve" }) }).label).toBe("Approved — waiting for the other decisions");
    expect(words({ status: "running" }).label).toBe("Running");
    expect(words({ status: "succeeded" }).label).toBe("Done");
    expect(words({ status: "rejected", decision: decision({ type: "reject" }) }).label).toBe("Rejected");
    expect(words({ status: "cancelled" }).label).toBe("Cancelled");
    expect(words({ status: "expired" }).label).toBe("Expired");
    expect(words({ status: "awaiting_client" }).label).toBe("Waiting for your browser");
    const failed = words({ status: "failed", started_at: "2025-01-01T00:00:00Z", executed_args: { text: "a" }, error: { code: "timeout", message: "It took too long." } });
    expect([failed.label, failed.sentence, failed.code]).toEqual(["Timed out", "It took too long.", "timeout"]);
  });

  it("never says Cancelled or Failed for a call stopped while its tool ran", () => {
    const stopped = "Stopped while running (the run was cancelled): it may have happened. It was not run again.";
    const stoppedWords = words({ status: "failed", started_at: "2025-01-01T00:00:00Z", executed_args: { text: "a" }, error: { code: "outcome_unknown", message: stopped } });
    expect([stoppedWords.label, stoppedWords.sentence, stoppedWords.code]).toEqual(["May have happened", stopped, "outcome_unknown"]);
  });

  it("does not say Done for a tool answered instead of run", () => {
    // bob answered Ada's notes.add card with "hi": the badge said "Done", yet no note was added.
    const answered = words({ name: "notes.add", card: "approval", status: "succeeded", started_at: null, decision: decision({ type: "respond", message: "hi" }) });
    expect([answered.label, answered.sentence]).toEqual(["Answered, not run", null]);
    // A question's answer is its result: still Done.
    expect(words({ name: "ask.choice", card: "choice", status: "succeeded", started_at: null, decision: decision({ type: "respond", message: "tea" }) }).label).toBe("Done");
    expect(words({ name: "custom.pick", card: "choice", status: "succeeded", started_at: null, decision: decision({ type: "respond", message: "a" }) }).label).toBe("Done");
  });

  it("says 'Not run: <reason>' for an approved call refused before its handler ran", () => {
    const call = toolCall({ status: "failed", executed_args: null, started_at: null, decision: decision({ type: "approve" }), error: { code: "permission_denied", message: "An admin turned this tool off." } });
    expect(notRun(call)).toBe(true);
    expect(statusWords(call).sentence).toBe("Not run: An admin turned this tool off.");
    const out = html(<DecisionSummary call={call} />);
    expect(out).toContain("Not run: An admin turned this tool off.");
    expect(out).not.toContain("Executed with");
    expect(notRun({ ...call, started_at: "2025-01-01T00:00:00Z" })).toBe(false);
  });

  it("says 'Not run: <field in words>' for a call with bad arguments, with no code in parentheses", () => {
    const call = toolCall({ status: "failed", executed_args: null, started_at: null, decision: null, error: { code: "invalid_args", message: "Text must not be empty." } });
    const words = statusWords(call);
    expect([words.label, words.sentence, words.code]).toEqual(["Not run", "Not run: Text must not be empty.", "invalid_args"]);
    const out = html(<StatusSentence call={call} />);
    expect(out).toContain("Not run: Text must not be empty.");
    expect(out).not.toContain("(invalid_args)");
    expect(out).toContain('data-code="invalid_args"');
  });

});

describe("confirmation cards", () => {
  const deleteCall = toolCall({
    name: "notes.delete",
    status: "interrupted",
    proposed_args: { id: 2 },
    destructive: true,
    confirmation: { title: "Delete a note", summary: "Delete note #2: “<b>buy milk</b>”. This cannot be undone.", action_label: "Delete", detail: null, previous: null },
  });

  it("uses the summary as the heading and action_label on a danger button placed after Reject", () => {
    const out = html(<ApprovalCard {...props({ call: deleteCall, title: "Delete a note" })} />);
    expect(out).toContain("Delete note #2: “&lt;b&gt;buy milk&lt;/b&gt;”. This cannot be undone.</h4>");
    // Each button names what it acts on (a screen reader lists buttons without their card).
    const named = (action: string) => `aria-label="${action} — Delete note #2: “&lt;b&gt;buy milk&lt;/b&gt;”. This cannot be undone."`;
    expect(out).toContain(
      `data-testid="reject" ${named("Reject")}>Reject</button><button type="button" data-testid="edit" ${named("Edit")}>Edit</button>` +
        `<button type="button" class="danger solid" data-testid="approve" ${named("Delete")}>Delete</button>`,
    );
    expect(out).toContain('data-testid="view-json"');
    expect(out).not.toContain('"id"'); // raw JSON only behind View JSON
  });

  it("does not repeat the tool's title above the summary (the row above the card shows it)", () => {
    const out = html(<ApprovalCard {...props({ call: deleteCall, title: "Delete a note" })} />);
    expect(out).not.toContain(">Delete a note<");
    expect(out).toContain('<p class="card-kicker"><span class="tag danger">deletes data</span></p>');
    const quiet = toolCall({ ...deleteCall, destructive: false, write: false });
    expect(html(<ApprovalCard {...props({ call: quiet, title: "Delete a note" })} />)).not.toContain("card-kicker");
  });

  it("without a confirmation shows the args as fields and Approve", () => {
    const out = html(<ApprovalCard {...props({ call: toolCall({ status: "interrupted", proposed_args: { text: "hi" } }) })} />);
    expect(out).toContain('<span class="arg-label">Text</span>');
    expect(out).toMatch(/class="primary" data-testid="approve" aria-label="Approve — [^"]+">Approve</);
  });

  it("documents.write: one-line summary and Review; approve unless the source was edited", () => {
    const call = toolCall({
      name: "documents.write",
      status: "interrupted",
      proposed_args: { title: "Plan", markdown: "# Plan\nline" },
      modal: true,
      confirmation: { title: "Write a document", summary: "Save the document “Plan” (replaces the stored one)", action_label: "Save document", detail: "# Plan\nline", previous: "# Plan" },
    });
    const out = html(<DocumentCard {...props({ call, title: "Write a document" })} />);
    expect(out).toContain("Save the document “Plan” (replaces the stored one)</h4>");
    expect(out).toContain('data-testid="document-review"');
    expect(out).not.toContain("document-modal");
    expect(documentDecision(call.proposed_args, "# Plan\nline")).toEqual({ type: "approve" });
    expect(documentDecision(call.proposed_args, "# Plan 2")).toEqual({ type: "edit", args: { title: "Plan", markdown: "# Plan 2" } });
  });

  it("counts edits as unsaved only when the kept draft differs from the proposal", () => {
    const proposed = { title: "Plan", markdown: "# Plan\nline" };
    expect(hasUnsavedEdits(proposed, null)).toBe(false); // nothing typed
    expect(hasUnsavedEdits(proposed, "# Plan\nline")).toBe(false); // typed back to the proposal
    expect(hasUnsavedEdits(proposed, "# Plan\nline 2")).toBe(true);
  });
});

describe("registry and frontend tools", () => {
  afterEach(() => forgetStarted());

  it("has built-in invokes for the browser tools and the documents card", () => {
    expect(invokerFor("browser.time_zone")).toBe(browserTimeZone);
    expect(invokerFor("browser.selection")).toBe(browserSelection);
    expect(cardFor({ name: "documents.write", card: null })).toBe(DocumentCard);
    expect(invokerFor("notes.add")).toBeUndefined();
    expect(isQuestion({ name: "suggestions", card: null })).toBe(true);
    expect(isQuestion({ name: "notes.add", card: null })).toBe(false);
  });

  it("browser.time_zone answers with the IANA zone; browser.selection with the last selection", () => {
    const zone = browserTimeZone();
    expect(zone.data).toEqual({ time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone });
    expect(zone.text).toBe(`Browser time zone: ${Intl.DateTimeFormat().resolvedOptions().timeZone}.`);
    setSelectionForTest("");
    expect(browserSelection()).toEqual({ text: "Nothing is selected on the page.", data: { text: "" } });
    setSelectionForTest("the chosen words");
    expect(browserSelection().data).toEqual({ text: "the chosen words" });
  });

  const frontendCall = (over: Partial<ToolCallOut> = {}) =>
    toolCall({ id: "call_f", name: "test.echo", status: "awaiting_client", execution: "frontend", proposed_args: { word: "proposed" }, ...over });

  it("runs invoke with the executed (edited) args and posts the result once per tab", async () => {
    const posted: Array<[string, ToolResultIn]> = [];
    const deps = {
      invoker: () => (args: Record<string, unknown>) => ({ text: `echo ${String(args.word)}`, data: { word: args.word } }),
      post: async (id: string, body: ToolResultIn) => void posted.push([id, body]),
    };
    const call = frontendCall({ executed_args: { word: "edited" } });
    expect(await runFrontendCall(call, deps)).toBe("posted");
    expect(await runFrontendCall(call, deps)).toBe("skipped");
    expect(posted).toEqual([["call_f", { text: "echo edited", data: { word: "edited" } }]]);
    expect(await runFrontendCall(frontendCall({ id: "x", status: "interrupted" }), deps)).toBe("skipped");
  });

  it("posts errors as {error: {code, message}}; a 409 from another tab is quiet", async () => {
    const fail = await invokeToBody(frontendCall(), () => {
      throw new ToolInvokeError("upstream_error", "No permission from the browser.");
    });
    expect(fail).toEqual({ error: { code: "upstream_error", message: "No permission from the browser." } });
    expect(await invokeToBody(frontendCall(), () => Promise.reject(new Error("boom")))).toEqual({ error: { code: "failed", message: "boom" } });
    expect(await invokeToBody(frontendCall(), undefined)).toEqual({ error: { code: "failed", message: "This browser cannot run the tool “test.echo”." } });

    const conflict = { invoker: () => () => ({ text: "t" }), post: async () => Promise.reject(new ApiError(409, { code: "not_awaiting_result", message: "Already posted." })) };
    expect(await runFrontendCall(frontendCall({ id: "c409" }), conflict)).toBe("already");
  });

  it("turns a 422 invalid_output into the call's error", async () => {
    const bodies: ToolResultIn[] = [];
    const deps = {
      invoker: () => () => ({ text: "t", data: { wrong: true } }),
      post: async (_id: string, body: ToolResultIn) => {
        bodies.push(body);
        if ("text" in body) throw new ApiError(422, { code: "invalid_output", message: "data does not fit" });
      },
    };
    expect(await runFrontendCall(frontendCall({ id: "c422" }), deps)).toBe("posted");
    expect(bodies[1]).toEqual({ error: { code: "invalid_output", message: "The browser's result was refused: data does not fit" } });
  });

  it("registerTool replaces and restores; it needs a card or an invoke", () => {
    const Card = () => null;
    const undo = registerTool("suggestions", { card: Card });
    expect(cardFor({ name: "suggestions", card: null })).toBe(Card);
    undo();
    expect(cardFor({ name: "suggestions", card: null })).not.toBe(Card);
    expect(() => registerTool("x", {})).toThrow();
  });
});

describe("many calls", () => {
  const tools: Record<string, ToolOut> = {};
  const c = (id: string, over: Partial<ToolCallOut> = {}) => toolCall({ id, status: "interrupted", run_id: "run_1", ...over });

  it("counts decided calls of the waiting step; Approve all skips questions", () => {
    const calls = [c("a", { decision: decision({}) }), c("b"), c("q", { name: "suggestions" }), c("old", { run_id: "run_0", status: "succeeded", decision: decision({}) })];
    const batch = batchOf(calls, tools);
    expect(batch?.calls.map((x) => x.id)).toEqual(["a", "b", "q"]);
    expect(batch?.decided).toBe(1);
    expect(batch?.approvable.map((x) => x.id)).toEqual(["b"]);
    expect(batch?.rejectable.map((x) => x.id)).toEqual(["b", "q"]);
  });

  it("shows nothing for a single call or once every call is decided", () => {
    expect(batchOf([c("a")], tools)).toBeNull();
    expect(batchOf([c("a", { decision: decision({}) }), c("b", { decision: decision({}) })], tools)).toBeNull();
  });
});

describe("long content", () => {
  it("folds over ~20 kB with a short preview", () => {
    expect(needsFold("x".repeat(FOLD_CHARS))).toBe(false);
    expect(needsFold("x".repeat(FOLD_CHARS + 1))).toBe(true);
    expect(previewOf("x".repeat(5000))).toHaveLength(1501);
  });
});
