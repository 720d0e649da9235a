/** The waiting banner's jump button: the keyboard shortcut is a hint apart from its words. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { WaitingBanner } from "./WaitingBanner";

describe("the jump to the waiting decision", () => {
  it("keeps the shortcut in a hint a touch screen hides, and announces it to assistive tech", () => {
    const html = renderToStaticMarkup(<WaitingBanner count={1} name="Ada" onJump={() => {}} />);
    expect(html).toContain('aria-keyshortcuts="Alt+J"');
    expect(html).toMatch(/>Go to the decision<span class="shortcut-hint"> \(Alt\+J\)<\/span><\/button>/);
  });
});
