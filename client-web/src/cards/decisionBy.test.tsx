/** A card names who decided as the operation log does: "you" for the viewer, else the name. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { DecisionOut, MeOut } from "../api/types";
import { AppDataContext } from "../state/appData";
import { toolCall } from "../test/fixtures";
import { DecisionSummary } from "./DecisionSummary";

const approved: DecisionOut = {
  id: "dec_1",
  type: "approve",
  user_id: "user_local",
  user_name: "local",
  args: null,
  message: null,
  proposed_args: null,
  created_at: "2025-01-01T10:42:00Z",
};

function by(me: MeOut | null): string {
  const out = renderToStaticMarkup(
    <AppDataContext.Provider value={{ me, tools: {}, employees: {}, reload: () => {} }}>
      <DecisionSummary call={toolCall({ status: "succeeded", decision: approved })} />
    </AppDataContext.Provider>,
  );
  const said = /data-testid="decision-by">([^<]*)</.exec(out);
  return said ? said[1] : out;
}

describe("who decided, on a card", () => {
  it("is you when the viewer decided, not the implied user's name 'local'", () => {
    expect(by({ id: "user_local", name: "local", role: "admin" } as MeOut)).toMatch(/^by you at \S/);
  });

  it("is the decider's name when someone else decided", () => {
    expect(by({ id: "user_ann", name: "ann", role: "admin" } as MeOut)).toMatch(/^by local at \S/);
    expect(by(null)).toMatch(/^by local at \S/);
  });
});
