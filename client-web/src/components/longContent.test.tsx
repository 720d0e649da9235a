/** Long messages and large results fold with "Show all" (the modal opens on demand). */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { reducer, initialState } from "../state/reducer";
import { detail, message, toolCall } from "../test/fixtures";
import { MessageList } from "./MessageList";

const big = (n: number) => "word <b>x</b> ".repeat(Math.ceil(n / 14)).slice(0, n);

describe("long content", () => {
  it("folds an assistant message over ~20 kB and keeps short ones whole", () => {
    const state = reducer(initialState, {
      type: "reset",
      detail: detail({
        messages: [
          message({ id: 1, role: "user", content: "hi" }),
          message({ id: 2, role: "assistant", content: big(1_000_000) }),
          message({ id: 3, role: "assistant", content: "short reply" }),
        ],
      }),
    });
    const out = renderToStaticMarkup(<MessageList state={state} />);
    expect(out.match(/data-testid="show-all"/g)).toHaveLength(1);
    expect(out).toContain("Show all (1,000,000 characters)");
    expect(out).toContain("short reply");
    expect(out.length).toBeLessThan(20_000); // the preview only, not the megabyte
    expect(out).not.toContain("<b>x</b>");
  });

  it("folds a cut tool result and says its whole size", () => {
    const call = toolCall({ id: "c", message_id: 2, status: "succeeded", result_text: big(60_000), result_cut: true, result_chars: 5_242_880 });
    const state = reducer(initialState, {
      type: "reset",
      detail: detail({ messages: [message({ id: 2, role: "assistant", content: "", tool_calls: [call] })] }),
    });
    const out = renderToStaticMarkup(<MessageList state={state} />);
    expect(out).toContain("Show all (5,242,880 characters)");
    expect(out).not.toContain("full-text-modal");
  });
});
