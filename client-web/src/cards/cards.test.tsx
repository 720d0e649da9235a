import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { DecisionOut } from "../api/types";
import { cardProps, toolCall } from "../test/fixtures";
import { ApprovalCard } from "./approval/ApprovalCard";
import { fieldErrorsFrom, pathLabel, pathSegments, toErrorSchema } from "./approval/fieldErrors";
import { ChoiceCard } from "./choice/ChoiceCard";
import { cardFor, fallbackCard, hasCard } from "./registry";

const decision = (over: Partial<DecisionOut>): DecisionOut => ({
  id: "dec_1",
  type: "approve",
  user_id: "user_local",
  user_name: "local",
  args: null,
  message: null,
  proposed_args: null,
  created_at: "2025-01-01T00:00:00Z",
  ...over,
});

const props = cardProps;

describe("registry", () => {
  it("picks by tool name, then by card hint, then the approval card", () => {
    expect(cardFor({ name: "suggestions", card: null })).toBe(ChoiceCard);
    expect(cardFor({ name: "x", card: null }, { card: "choice" })).toBe(ChoiceCard);
    expect(cardFor({ name: "x", card: "choice" })).toBe(ChoiceCard);
    expect(cardFor({ name: "x", card: "approval" })).toBe(ApprovalCard);
    expect(cardFor({ name: "x", card: "unknown" })).toBe(fallbackCard);
    expect(fallbackCard).toBe(ApprovalCard);
  });

  it("gives a card to waiting or decided calls only", () => {
    expect(hasCard(toolCall({ status: "interrupted" }))).toBe(true);
    expect(hasCard(toolCall({ status: "succeeded", decision: decision({}) }))).toBe(true);
    expect(hasCard(toolCall({ status: "succeeded" }))).toBe(false);
  });
});

describe("ApprovalCard", () => {
  it("offers approve / edit / reject while live", () => {
    const out = renderToStaticMarkup(<ApprovalCard {...props({})} />);
    for (const id of ["approve", "edit", "reject"]) expect(out).toContain(`data-testid="${id}"`);
    expect(out).not.toContain('data-testid="decision"');
  });

  it("disables the buttons while a decision is in flight", () => {
    const out = renderToStaticMarkup(<ApprovalCard {...props({ busy: true })} />);
    expect(out).toMatch(/data-testid="approve" disabled=""/);
  });

  it.each([
    [decision({ type: "approve" }), "Approved"],
    [decision({ type: "edit", args: { text: "b" } }), "Edited and approved"],
    [decision({ type: "reject", message: "not now" }), "Rejected: not now"],
  ])("shows the recorded decision %#", (d, text) => {
    const call = toolCall({ status: "interrupted", decision: d });
    const out = renderToStaticMarkup(<ApprovalCard {...props({ call, live: false })} />);
    expect(out).toContain(text);
    expect(out).not.toContain('data-testid="approve"');
  });
});

describe("ChoiceCard", () => {
  const proposed = { options: ["Red", "Green", "Blue"] };

  it("offers one enabled button per option while live", () => {
    const call = toolCall({ name: "suggestions", status: "interrupted", proposed_args: proposed });
    const out = renderToStaticMarkup(<ChoiceCard {...props({ call })} />);
    expect(out.match(/data-testid="choice-option"/g)).toHaveLength(3);
    expect(out).not.toContain("disabled");
    expect(out).not.toContain('aria-pressed="true"');
  });

  it("highlights the chosen option and disables every button once decided", () => {
    const call = toolCall({
      name: "suggestions",
      status: "succeeded",
      proposed_args: proposed,
      executed_args: { ...proposed, option: "Green" },
      decision: decision({ type: "edit", args: { ...proposed, option: "Green" } }),
    });
    const out = renderToStaticMarkup(<ChoiceCard {...props({ call, live: false })} />);
    expect(out.match(/disabled=""/g)).toHaveLength(3);
    expect(out.match(/aria-pressed="true"/g)).toHaveLength(1);
    expect(out).toMatch(/data-chosen="true" aria-pressed="true" class="choice chosen" disabled="">Green</);
  });
});

describe("field errors", () => {
  it("reads paths as lists, pointers or dotted strings", () => {
    expect(pathSegments(["items", 0, "name"])).toEqual(["items", "0", "name"]);
    expect(pathSegments("/items/0/name")).toEqual(["items", "0", "name"]);
    expect(pathSegments("items[0].name")).toEqual(["items", "0", "name"]);
    expect(pathSegments([])).toEqual([]);
    expect(pathLabel(["items", 0, "name"])).toBe("items[0].name");
    expect(pathLabel([])).toBe("(arguments)");
  });

  it("maps them to an rjsf error schema", () => {
    const errors = fieldErrorsFrom({
      errors: [
        { path: ["title"], message: "too long", rule: "maxLength" },
        { path: ["title"], message: "bad word", rule: "check" },
        { path: [], message: "missing due", rule: "required" },
        { path: ["tags", 1], message: "not a string", rule: "type" },
      ],
    });
    expect(toErrorSchema(errors)).toEqual({
      __errors: ["missing due"],
      title: { __errors: ["too long", "bad word"] },
      tags: { 1: { __errors: ["not a string"] } },
    });
    expect(fieldErrorsFrom(undefined)).toEqual([]);
    expect(fieldErrorsFrom({ errors: "nope" })).toEqual([]);
  });
});
