/**
 * A call stopped while its tool ran reads "May have happened"; when its tool returns after all
 * (`tool_call.finished_late`), the same card says what really happened, live and on a reload.
 */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { StreamEvent, ToolCallOut, ToolOut } from "../api/types";
import { outcomeWords } from "../audit/words";
import { ApprovalCard } from "../cards/approval/ApprovalCard";
import { UndoButton } from "../cards/approval/UndoButton";
import { cardFor } from "../cards/registry";
import { nextStep, statusWords } from "../cards/status/status";
import { AppDataContext } from "../state/appData";
import { initialState, reducer, type ConversationState } from "../state/reducer";
import { decision } from "../test/decisions";
import { cardProps, detail, message, toolCall } from "../test/fixtures";
import { MessageList } from "./MessageList";

const tools = {
  "notes.add": {
    name: "notes.add",
    title: "Add a note",
    input_schema: { type: "object", properties: { text: { type: "string", title: "Note" } } },
  } as unknown as ToolOut,
};

const STOPPED = "Stopped while running (the run was cancelled): it may have happened. It was not run again.";
const ran = { id: "c", message_id: 2, name: "notes.add", card: "approval", started_at: "2025-01-01T10:00:00Z", executed_args: { text: "buy milk" }, decision: decision({ type: "approve" }) };
const stopped = toolCall({ ...ran, status: "failed", error: { code: "outcome_unknown", message: STOPPED } });
const happened = toolCall({
  ...ran,
  status: "succeeded",
  result_text: "Added note #6: buy milk",
  finished_late_at: "2025-01-01T10:00:05Z",
  undo: { state: "available", reason: null },
});
const failedLate = toolCall({
  ...ran,
  status: "failed",
  error: { code: "upstream_error", message: "The notes service said no." },
  finished_late_at: "2025-01-01T10:00:05Z",
});

function stateWith(call: ToolCallOut): ConversationState {
  return reducer(initialState, {
    type: "reset",
    detail: detail({ last_event_seq: 5, messages: [message({ id: 2, role: "assistant", content: "", tool_calls: [call] })] }),
  });
}

function page(state: ConversationState): string {
  return renderToStaticMarkup(
    <AppDataContext.Provider value={{ me: null, tools, employees: {}, reload: () => {} }}>
      <MessageList state={state} />
    </AppDataContext.Provider>,
  );
}

const late = (call: ToolCallOut, seq = 6) => ({ type: "tool_call.finished_late", seq, run_id: "run_1", tool_call: call }) as StreamEvent;

describe("a call stopped while its tool ran, whose tool then returned", () => {
  it("says it happened after it was stopped, with what it did, instead of May have happened", () => {
    const before = page(stateWith(stopped));
    expect(before).toContain(">May have happened</span>");
    expect(before).toContain(STOPPED);

    const state = reducer(stateWith(stopped), { type: "event", event: late(happened) });
    const after = page(state);
    expect(after).toContain(">Happened after it was stopped</span>");
    expect(after).toContain("Added note #6: buy milk");
    expect(after).not.toContain("May have happened");
    expect(after).not.toContain('data-testid="tool-error"');
    // A reload reads the same.
    expect(page(stateWith(happened))).toBe(after);
  });

  it("keeps the real outcome when an older answer or a replayed event comes after it", () => {
    const state = reducer(stateWith(stopped), { type: "event", event: late(happened) });
    expect(reducer(state, { type: "local.toolCall", toolCall: stopped }).toolCalls.c).toBe(happened);
    expect(reducer(state, { type: "event", event: late(stopped, 6) }).toolCalls.c).toBe(happened);
  });

  it("says a late failure in words, with the error", () => {
    const words = statusWords(failedLate);
    expect([words.label, words.sentence, words.code]).toEqual([
      "Failed after it was stopped",
      "Failed after it was stopped: The notes service said no.",
      "upstream_error",
    ]);
    expect(page(stateWith(failedLate))).toContain(">Failed after it was stopped</span>");
  });

  it("offers Undo once it happened, and the generic card does not read as waiting", () => {
    const undo = renderToStaticMarkup(<UndoButton call={happened} onUpdated={() => {}} />);
    expect(undo).toContain('data-testid="undo"');
    expect(renderToStaticMarkup(<UndoButton call={stopped} onUpdated={() => {}} />)).toBe("");
    expect(cardFor(happened)).toBe(ApprovalCard);
    const card = renderToStaticMarkup(<ApprovalCard {...cardProps({ call: happened, live: false })} />);
    expect(card).not.toContain('data-testid="approve"');
    expect(outcomeWords("finished_late")).toBe("Finished after it was stopped or timed out");
  });
});

const TIMED_OUT = "The tool “Add a note” did not finish within 30 seconds and is still running, so it may still happen.";
const timedOut = toolCall({ ...ran, status: "failed", error: { code: "timeout", message: TIMED_OUT } });

describe("a call that timed out while its tool ran on in its thread, whose tool then returned", () => {
  it("says it timed out and may still happen, not a flat Failed", () => {
    const words = statusWords(timedOut);
    expect([words.label, words.sentence, words.code]).toEqual(["Timed out", TIMED_OUT, "timeout"]);
    const shown = page(stateWith(timedOut));
    expect(shown).toContain(">Timed out</span>");
    expect(shown).not.toContain(">Failed</span>");
  });

  it("says it happened after it timed out, with what it did, live and on a reload", () => {
    const happenedLate = toolCall({ ...happened, finished_late_after: "timeout" });
    const after = page(reducer(stateWith(timedOut), { type: "event", event: late(happenedLate) }));
    expect(after).toContain(">Happened after it timed out</span>");
    expect(after).toContain("Added note #6: buy milk");
    expect(after).not.toContain("Timed out");
    expect(page(stateWith(happenedLate))).toBe(after);
  });

  it("says a late failure after the timeout in words, with the error", () => {
    const words = statusWords(toolCall({ ...failedLate, finished_late_after: "timeout" }));
    expect([words.label, words.sentence]).toEqual(["Failed after it timed out", "Failed after it timed out: The notes service said no."]);
  });
});

describe("a call whose outcome is unknown gives the person a next step", () => {
  const NEXT = "Before trying again, check whether this happened: Add a note: buy milk.";

  it("after a stop: check the call, named as its card names it, before trying again", () => {
    const shown = page(stateWith(toolCall({ ...stopped, write: true })));
    expect(shown).toContain(`data-testid="next-step">${NEXT}</p>`);
    // The error sentence stays as the server said it; the next step is its own line.
    expect(shown).toContain(`<span class="error-sentence">${STOPPED}</span></div>`);
    expect(nextStep(stopped)).toBe("Before trying again, check whether it happened.");
  });

  it("after a write timed out: check, and the card shows the outcome if it finishes later", () => {
    const shown = page(stateWith(toolCall({ ...timedOut, write: true })));
    expect(shown).toContain(`${NEXT} This card shows the outcome if the tool finishes later.</p>`);
  });

  it("none once it finished late, for a read that timed out, or for a plain failure", () => {
    expect(page(stateWith(happened))).not.toContain("next-step");
    expect(page(stateWith(toolCall({ ...failedLate, write: true })))).not.toContain("next-step");
    expect(page(stateWith(toolCall({ ...timedOut, write: false })))).not.toContain("next-step");
    const failed = toolCall({ ...ran, status: "failed", write: true, error: { code: "upstream_error", message: "No." } });
    expect(nextStep(failed, "Add a note: buy milk")).toBeNull();
  });
});
