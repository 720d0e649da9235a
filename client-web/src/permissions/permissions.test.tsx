import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ActionsOut, GrantOut } from "../api/types";
import { RememberChoice } from "../cards/approval/RememberChoice";
import { argsText, NO_REMEMBER, rememberBody, rememberSummary, scopeText, switchText, usesText, when } from "./describe";

function grant(over: Partial<GrantOut> = {}): GrantOut {
  return {
    id: "grant_1",
    tool: "notes.add",
    tool_title: "Add a note",
    employee: "assistant",
    employee_name: "Ada",
    scope: "conversation",
    conversation_id: "conv_1",
    conversation_title: "Shopping list",
    args: null,
    uses: 0,
    last_used_at: null,
    created_at: "2026-12-01T10:00:00Z",
    expires_at: "2026-12-08T10:00:00Z",
    source_call_id: null,
    void_reason: null,
    ...over,
  };
}

function actions(over: Partial<ActionsOut> = {}): ActionsOut {
  return {
    employee: "assistant",
    employee_name: "Ada",
    on: true,
    on_until: "2026-12-08T10:00:00Z",
    lapsed_at: null,
    changed_by: "default",
    changed_at: "2026-12-01T10:00:00Z",
    grant_days: 7,
    cancelled_calls: [],
    ...over,
  };
}

describe("grant words", () => {
  it("says where a grant applies", () => {
    expect(scopeText(grant())).toBe("In “Shopping list”");
    expect(scopeText(grant({ conversation_title: null }))).toBe("In one conversation");
    expect(scopeText(grant({ scope: "employee", conversation_id: null }))).toBe("All conversations with Ada");
  });

  it("says which details it is narrowed to", () => {
    expect(argsText(null)).toBe("Any details");
    expect(argsText({ text: "buy milk", id: 2 })).toBe("Only with text: buy milk, id: 2");
  });

  it("counts uses in words", () => {
    expect([0, 1, 3].map(usesText)).toEqual(["Not used yet", "Used once", "Used 3 times"]);
  });

  it("names today's times as today", () => {
    const now = new Date("2026-12-01T12:00:00Z");
    expect(when("2026-12-01T12:00:00Z", now)).toMatch(/^today /);
    expect(when("2026-12-08T12:00:00Z", now)).not.toMatch(/^today/);
  });
});

describe("AI actions switch words", () => {
  it("on, off, lapsed", () => {
    const now = new Date("2026-12-01T12:00:00Z");
    expect(switchText(actions(), now)).toMatch(/^On until /);
    expect(switchText(actions({ on: false, on_until: null }), now)).toBe("Off: write actions are not offered and not run");
    expect(switchText(actions({ on: false, on_until: null, lapsed_at: "2026-11-30T10:00:00Z" }), now)).toMatch(
      /^Off since .* \(the 7-day period ran out\)$/,
    );
  });
});

describe("don't ask again", () => {
  it("sends nothing until ticked, then the scope, exact args and days", () => {
    expect(rememberBody(NO_REMEMBER)).toBeUndefined();
    expect(rememberBody({ on: true, scope: "employee", exactArgs: true, days: 30 })).toEqual({
      scope: "employee",
      exact_args: true,
      days: 30,
    });
  });

  it("explains what ticking it does", () => {
    expect(rememberSummary({ on: true, scope: "conversation", exactArgs: false, days: 7 }, "Add a note")).toBe(
      "Add a note will run without asking in this conversation for 7 days. You can revoke this under Permissions.",
    );
    expect(rememberSummary({ on: true, scope: "employee", exactArgs: true, days: 1 }, "Delete a note")).toBe(
      "Delete a note with exactly these details will run without asking in all your conversations with this employee for 1 day. You can revoke this under Permissions.",
    );
  });

  it("shows the options only once ticked", () => {
    const off = renderToStaticMarkup(<RememberChoice value={NO_REMEMBER} onChange={() => {}} toolTitle="Add a note" />);
    expect(off).toContain("Don’t ask again");
    expect(off).not.toContain("In this conversation");
    const on = renderToStaticMarkup(<RememberChoice value={{ ...NO_REMEMBER, on: true }} onChange={() => {}} toolTitle="Add a note" />);
    expect(on).toContain("In this conversation");
    expect(on).toContain("Only with exactly these details");
    expect(on).toContain("7 days");
  });
});
