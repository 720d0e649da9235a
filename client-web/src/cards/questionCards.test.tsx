import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ApiError } from "../api/client";
import type { DecisionIn, ToolOut } from "../api/types";
import { decision } from "../test/decisions";
import { toolCall } from "../test/fixtures";
import { ApprovalCard } from "./approval/ApprovalCard";
import { toErrorSchema } from "./approval/fieldErrors";
import { answeredOptions, choiceMessage, choiceMode, questionOf } from "./choice/choice";
import { ChoiceCard } from "./choice/ChoiceCard";
import { ConfirmCard } from "./confirm/ConfirmCard";
import { DECLINE, decline } from "./decline";
import { decisionText } from "./DecisionSummary";
import { AnswerForm } from "./form/AnswerForm";
import { answerRows, answerSummary, formErrors, formMessage, formQuestionOf, submittedValues } from "./form/formAnswer";
import { FormCard } from "./form/FormCard";
import { argSections } from "./markdown/markdownContent";
import { MarkdownCard } from "./markdown/MarkdownCard";
import { cardFor } from "./registry";
import type { CardProps } from "./types";

const props = (over: Partial<CardProps>): CardProps => ({
  call: toolCall({ status: "interrupted" }),
  tool: undefined,
  title: "Ask",
  live: true,
  busy: false,
  decide: async () => null,
  ...over,
});
const html = (el: React.ReactElement) => renderToStaticMarkup(el);

describe("registry: the ask cards", () => {
  it("picks by tool name", () => {
    expect(cardFor({ name: "ask.choice", card: null })).toBe(ChoiceCard);
    expect(cardFor({ name: "ask.form", card: null })).toBe(FormCard);
    expect(cardFor({ name: "ask.confirm", card: null })).toBe(ConfirmCard);
  });

  it("picks by the tool's card hint, the call's hint as fallback", () => {
    expect(cardFor({ name: "x", card: null }, { card: "form" })).toBe(FormCard);
    expect(cardFor({ name: "x", card: null }, { card: "confirm" })).toBe(ConfirmCard);
    expect(cardFor({ name: "x", card: null }, { card: "markdown" })).toBe(MarkdownCard);
    expect(cardFor({ name: "x", card: "markdown" })).toBe(MarkdownCard);
    expect(cardFor({ name: "x", card: "markdown" }, { card: "approval" })).toBe(ApprovalCard);
  });

  it("ignores inherited keys", () => {
    expect(cardFor({ name: "constructor", card: "toString" })).toBe(ApprovalCard);
  });
});

describe("choice helpers", () => {
  const schema = (properties: Record<string, unknown>) => ({ input_schema: { type: "object", properties } }) as Pick<ToolOut, "input_schema">;

  it("tells a suggestions choice (edit) from a question (respond)", () => {
    expect(choiceMode({ name: "suggestions", proposed_args: {} })).toBe("edit");
    expect(choiceMode({ name: "ask.choice", proposed_args: {} })).toBe("respond");
    expect(choiceMode({ name: "x", proposed_args: {} }, schema({ options: {}, option: {} }))).toBe("edit");
    expect(choiceMode({ name: "x", proposed_args: {} }, schema({ question: {}, options: {} }))).toBe("respond");
    expect(choiceMode({ name: "x", proposed_args: { question: "?", options: [] } })).toBe("respond");
    expect(choiceMode({ name: "x", proposed_args: { options: [] } })).toBe("edit");
  });

  it("answers with the option, or a JSON list in the options' order", () => {
    const single = questionOf(toolCall({ proposed_args: { question: "Q", options: ["a", "b", "c"] } }));
    expect(single).toEqual({ question: "Q", options: ["a", "b", "c"], multiple: false });
    expect(choiceMessage(single, ["b"])).toBe("b");
    const multiple = { ...single, multiple: true };
    expect(choiceMessage(multiple, ["c", "a"])).toBe('["a","c"]');
    expect(choiceMessage(multiple, [])).toBe("[]");
  });

  it("reads the recorded answer like the server does", () => {
    const answered = (message: string) => answeredOptions({ decision: decision({ type: "respond", message }) });
    expect(answered("b")).toEqual(["b"]);
    expect(answered(" b ")).toEqual(["b"]);
    expect(answered('"b"')).toEqual(["b"]);
    expect(answered('["a","c"]')).toEqual(["a", "c"]);
    expect(answeredOptions({ decision: decision({ type: "approve" }) })).toEqual([]);
    expect(answeredOptions({ decision: null })).toEqual([]);
  });
});

describe("ChoiceCard for ask.choice", () => {
  const args = { question: "Which drink?", options: ["tea", "coffee", "juice"] };

  it("single: one enabled button per option and the question", () => {
    const out = html(<ChoiceCard {...props({ call: toolCall({ name: "ask.choice", status: "interrupted", proposed_args: args }) })} />);
    expect(out).toContain("Which drink?");
    expect(out.match(/data-testid="choice-option"/g)).toHaveLength(3);
    expect(out).not.toContain("disabled");
    expect(out).not.toContain('data-testid="choice-submit"');
  });

  it("single, decided: the answer highlighted, nothing clickable, 'Answered: coffee'", () => {
    const call = toolCall({ name: "ask.choice", status: "succeeded", proposed_args: args, decision: decision({ type: "respond", message: "coffee" }) });
    const out = html(<ChoiceCard {...props({ call, live: false })} />);
    expect(out.match(/disabled=""/g)).toHaveLength(3);
    expect(out).toMatch(/data-chosen="true" aria-pressed="true" class="choice chosen" disabled="">coffee</);
    expect(out.match(/data-chosen="true"/g)).toHaveLength(1);
    expect(out).toContain(">Answered: coffee<");
  });

  it("multiple: checkboxes and a submit, disabled until something is picked", () => {
    const call = toolCall({ name: "ask.choice", status: "interrupted", proposed_args: { ...args, multiple: true } });
    const out = html(<ChoiceCard {...props({ call })} />);
    expect(out.match(/type="checkbox"/g)).toHaveLength(3);
    expect(out).toMatch(/data-testid="choice-submit" disabled=""/);
  });

  it("multiple, decided: each chosen option marked, no submit", () => {
    const call = toolCall({
      name: "ask.choice",
      status: "succeeded",
      proposed_args: { ...args, multiple: true },
      decision: decision({ type: "respond", message: '["tea","juice"]' }),
    });
    const out = html(<ChoiceCard {...props({ call, live: false })} />);
    expect(out.match(/data-chosen="true"/g)).toHaveLength(2);
    expect(out.match(/checked=""/g)).toHaveLength(2);
    expect(out.match(/disabled=""/g)).toHaveLength(3);
    expect(out).not.toContain("choice-submit");
    expect(out).toContain(">Answered: tea, juice<");
  });
});

describe("form answers", () => {
  const fields = {
    type: "object",
    title: "Inner title",
    properties: { name: { type: "string", title: "Name" }, age: { type: "integer" }, news: { type: "boolean", title: "News" } },
    required: ["name"],
  };
  const call = toolCall({ name: "ask.form", status: "interrupted", proposed_args: { title: "Your details", fields } });

  it("renders the model's schema without repeating its title", () => {
    const q = formQuestionOf(call);
    expect(q.title).toBe("Your details");
    expect(q.schema).not.toHaveProperty("title");
    expect(q.schema.required).toEqual(["name"]);
    expect(formQuestionOf(toolCall({ proposed_args: {} })).schema).toEqual({ type: "object", properties: {} });
  });

  it("answers with the values as JSON and reads them back", () => {
    const message = formMessage({ name: "Ada", age: 36, news: false });
    expect(message).toBe('{"name":"Ada","age":36,"news":false}');
    const values = submittedValues({ decision: decision({ type: "respond", message }) });
    expect(values).toEqual({ name: "Ada", age: 36, news: false });
    expect(submittedValues({ decision: decision({ type: "respond", message: "[1]" }) })).toBeNull();
    expect(submittedValues({ decision: decision({ type: "respond", message: "not json" }) })).toBeNull();
  });

  it("shows the answer by field title, in the schema's order", () => {
    const rows = answerRows(formQuestionOf(call).schema, { news: true, name: "Ada", extra: "x" });
    expect(rows).toEqual([
      { name: "name", label: "Name", value: "Ada" },
      { name: "age", label: "age", value: "—" },
      { name: "news", label: "News", value: "Yes" },
      { name: "extra", label: "extra", value: "x" },
    ]);
    expect(answerSummary(rows)).toBe("Name: Ada · News: Yes · extra: x");
    expect(answerSummary([])).toBe("nothing");
  });

  it("maps the server's 422 to errors by field (extraErrors), or keeps its message", () => {
    const err = new ApiError(422, {
      code: "invalid_args",
      message: "The answer does not fit the question.",
      details: {
        errors: [
          { path: ["age"], message: "'x' is not of type 'integer'", rule: "type" },
          { path: ["name"], message: "Is required.", rule: "required" },
          { path: [], message: "The answer must be a JSON object.", rule: "type" },
        ],
      },
    });
    const mapped = formErrors(err);
    expect(mapped.message).toBeNull();
    expect(toErrorSchema(mapped.fieldErrors)).toEqual({
      __errors: ["The answer must be a JSON object."],
      age: { __errors: ["'x' is not of type 'integer'"] },
      name: { __errors: ["Is required."] },
    });
    const plain = formErrors(new ApiError(409, { code: "not_interrupted", message: "Already decided." }));
    expect(plain).toEqual({ fieldErrors: [], message: "Already decided." });
  });

  it("FormCard: loads the form while live; shows the submitted answer read-only once decided", () => {
    expect(html(<FormCard {...props({ call })} />)).toContain("Loading the form");
    const decided = { ...call, status: "succeeded" as const, decision: decision({ type: "respond", message: '{"name":"Ada","age":36}' }) };
    const out = html(<FormCard {...props({ call: decided, live: false })} />);
    expect(out).toContain("<h4>Your details</h4>");
    expect(out).toContain(">Answered: Name: Ada · age: 36<");
    expect(out).not.toContain("form-submit");
  });
});

describe("ConfirmCard", () => {
  const call = toolCall({ name: "ask.confirm", status: "interrupted", proposed_args: { summary: "Book Friday?" } });

  it("asks yes or no while live", () => {
    const out = html(<ConfirmCard {...props({ call })} />);
    expect(out).toContain("Book Friday?");
    expect(out).toContain('data-testid="confirm-yes"');
    expect(out).toContain('data-testid="confirm-no"');
  });

  it("shows the answer once decided", () => {
    const out = html(<ConfirmCard {...props({ call: { ...call, decision: decision({ type: "respond", message: "no" }) }, live: false })} />);
    expect(out).toContain(">Answered: no<");
    expect(out).not.toContain("confirm-yes");
  });
});

describe("MarkdownCard", () => {
  it("offers a review button; the modal opens on demand", () => {
    const call = toolCall({ name: "memo.draft", card: "markdown", status: "interrupted", proposed_args: { body: "# Hi" } });
    const out = html(<MarkdownCard {...props({ call })} />);
    expect(out).toContain('data-testid="markdown-open"');
    expect(out).toContain(">Review<");
    expect(out).not.toContain("markdown-modal");
  });

  it("splits the arguments into markdown and JSON sections", () => {
    expect(argSections({ body: "**b**", tags: ["x"] })).toEqual([
      { key: "body", markdown: "**b**" },
      { key: "tags", json: ["x"] },
    ]);
    expect(argSections(null)).toEqual([]);
  });
});

describe("decisionText", () => {
  it("words a respond as 'Answered: ...'", () => {
    expect(decisionText(decision({ type: "respond", message: "yes" }))).toBe("Answered: yes");
    expect(decisionText(decision({ type: "respond", message: '["a","b"]' }), "a, b")).toBe("Answered: a, b");
    expect(decisionText(decision({ type: "respond", message: null }))).toBe("Answered");
  });
});

describe("declining a question", () => {
  const formCall = toolCall({
    name: "ask.form",
    status: "interrupted",
    proposed_args: { title: "Your details", fields: { type: "object", properties: { name: { type: "string" } }, required: ["name"] } },
  });
  const rejected = decision({ type: "reject", message: null });

  it("Decline posts a reject (no reason) and reports only non-409 errors", async () => {
    expect(DECLINE).toEqual({ type: "reject" });
    const sent: DecisionIn[] = [];
    expect(await decline(async (body) => (sent.push(body), null))).toBeNull();
    expect(sent).toEqual([{ type: "reject" }]);
    expect(await decline(async () => new ApiError(500, { code: "error", message: "boom" }))).toBe("boom");
    expect(await decline(async () => new ApiError(409, { code: "not_interrupted", message: "Already decided." }))).toBeNull();
  });

  it("the form offers Decline next to Submit, disabled while busy", () => {
    const form = (disabled: boolean) =>
      html(<AnswerForm schema={formQuestionOf(formCall).schema} fieldErrors={[]} disabled={disabled} idPrefix="f" subject="Your details" onSubmit={() => {}} onDecline={() => {}} />);
    const out = form(false);
    expect(out).toMatch(/<button type="button" class="danger" data-testid="form-decline" aria-label="Decline — Your details">Decline<\/button>/);
    expect(out).toContain('data-testid="form-submit"');
    expect(form(true)).toMatch(/data-testid="form-decline" disabled=""/);
  });

  it("a declined form reads 'Declined', with no form and no submitted values", () => {
    const out = html(<FormCard {...props({ call: { ...formCall, status: "rejected", decision: rejected }, live: false })} />);
    expect(out).toContain('data-decision-type="reject"');
    expect(out).toContain(">Declined<");
    expect(out).not.toContain("Rejected");
    expect(out).not.toContain("form-submit");
    expect(out).not.toContain("form-decline");
  });

  it("ask.choice offers Decline while live (single and multiple), not once decided", () => {
    const args = { question: "Which drink?", options: ["tea", "coffee"] };
    const single = html(<ChoiceCard {...props({ call: toolCall({ name: "ask.choice", status: "interrupted", proposed_args: args }) })} />);
    expect(single.match(/data-testid="choice-decline"/g)).toHaveLength(1);
    const multi = html(<ChoiceCard {...props({ call: toolCall({ name: "ask.choice", status: "interrupted", proposed_args: { ...args, multiple: true } }) })} />);
    expect(multi.match(/data-testid="choice-decline"/g)).toHaveLength(1);
    const busy = html(<ChoiceCard {...props({ call: toolCall({ name: "ask.choice", status: "interrupted", proposed_args: args }), busy: true })} />);
    expect(busy).toMatch(/data-testid="choice-decline" disabled=""/);

    const declined = toolCall({ name: "ask.choice", status: "rejected", proposed_args: args, decision: rejected });
    const out = html(<ChoiceCard {...props({ call: declined, live: false })} />);
    expect(out).not.toContain("choice-decline");
    expect(out).not.toContain('data-chosen="true"');
    expect(out).toContain(">Declined<");
  });

  it("the suggestions card asks its question and offers Decline; the confirm card keeps its own controls", () => {
    const suggestions = html(
      <ChoiceCard {...props({ call: toolCall({ name: "suggestions", status: "interrupted", proposed_args: { question: "Which <b>name</b>?", options: ["a"] } }) })} />,
    );
    expect(suggestions).toContain('data-testid="choice-decline"');
    expect(suggestions).toContain("Which &lt;b&gt;name&lt;/b&gt;?</h4>");
    const confirm = html(<ConfirmCard {...props({ call: toolCall({ name: "ask.confirm", status: "interrupted", proposed_args: { summary: "?" } }) })} />);
    expect(confirm).not.toContain("decline");
  });

  it("decisionText words a reject as the card asks, the approval card keeps 'Rejected'", () => {
    expect(decisionText(rejected, null, "Declined")).toBe("Declined");
    expect(decisionText(decision({ type: "reject", message: "not now" }), null, "Declined")).toBe("Declined: not now");
    expect(decisionText(decision({ type: "reject", message: "no" }))).toBe("Rejected: no");
    const approval = html(<ApprovalCard {...props({ call: toolCall({ status: "rejected", decision: rejected }), live: false })} />);
    expect(approval).toContain(">Rejected<");
  });
});
