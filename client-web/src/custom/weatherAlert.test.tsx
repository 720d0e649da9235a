/** The README's "Write your own card", done: a module outside cards/ registers a card and an invoke. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ToolResultIn } from "../api/types";
import { CardHost } from "../cards/CardHost";
import { cardFor, invokerFor } from "../cards";
import { forgetStarted, runFrontendCall } from "../cards/frontend/runner";
import { toolCall } from "../test/fixtures";
import "./index";

describe("a card registered by a module of its own", () => {
  it("renders for its tool name instead of the generic card", () => {
    const call = toolCall({ name: "weather.alert", status: "interrupted", proposed_args: { city: "Oslo", level: 2 } });
    expect(cardFor(call).name).toBe("WeatherAlertCard");
    const out = renderToStaticMarkup(<CardHost call={call} onConflict={() => {}} />);
    expect(out).toContain('data-testid="weather-summary">Send a level 2 of 5 alert for Oslo</h4>');
    expect(out).not.toContain('data-testid="approve"'); // not the generic ApprovalCard
  });

  it("says Sent only once the alert went out, not when it was approved", () => {
    const approved = { id: "dec_1", type: "approve" as const, user_id: "u", user_name: "Ann", args: null, message: null, proposed_args: null, created_at: "2026-01-01T00:00:00Z" };
    const say = (status: "running" | "succeeded" | "failed") =>
      renderToStaticMarkup(<CardHost call={toolCall({ name: "weather.alert", status, decision: approved, proposed_args: { city: "Atlantis", level: 2 } })} onConflict={() => {}} />);
    expect(say("running")).toContain('data-testid="decision">Sending…</p>');
    expect(say("succeeded")).toContain('data-testid="decision">Sent</p>');
    expect(say("failed")).toContain('data-testid="decision">Not sent</p>');
  });

  it("shows what ran after an edit, not what the model proposed", () => {
    const edited = { id: "dec_2", type: "edit" as const, user_id: "u", user_name: "Ann", args: { city: "Bergen", level: 4 }, message: null, proposed_args: { city: "Oslo", level: 2 }, created_at: "2026-01-01T00:00:00Z" };
    const call = toolCall({ name: "weather.alert", status: "succeeded", decision: edited, proposed_args: { city: "Oslo", level: 2 }, executed_args: { city: "Bergen", level: 4 } });
    expect(renderToStaticMarkup(<CardHost call={call} onConflict={() => {}} />)).toContain('data-testid="weather-summary">Send a level 4 of 5 alert for Bergen</h4>');
  });

  it("runs its invoke when the call waits for the browser and posts the result", async () => {
    forgetStarted();
    expect(invokerFor("weather.units")).toBeTypeOf("function");
    const posted: Array<[string, ToolResultIn]> = [];
    const call = toolCall({ id: "call_units", name: "weather.units", status: "awaiting_client", execution: "frontend", proposed_args: {} });
    const outcome = await runFrontendCall(call, { invoker: invokerFor, post: async (id, body) => void posted.push([id, body]) });
    expect(outcome).toBe("posted");
    expect(posted).toHaveLength(1);
    const [id, body] = posted[0];
    expect(id).toBe("call_units");
    expect("text" in body && body.data).toEqual({ units: expect.stringMatching(/^(metric|imperial)$/) });
  });
});
