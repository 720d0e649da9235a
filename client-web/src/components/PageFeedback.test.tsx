import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { PageFeedback } from "./PageFeedback";

describe("PageFeedback", () => {
  it("shows the error as an alert and the notice as a status line, each only when set", () => {
    const both = renderToStaticMarkup(<PageFeedback error="The grant is gone." notice="Saved." noticeTestId="x-notice" />);
    expect(both).toBe('<p class="error" role="alert">The grant is gone.</p><p class="notice" role="status" data-testid="x-notice">Saved.</p>');
    expect(renderToStaticMarkup(<PageFeedback error={null} notice={null} noticeTestId="x-notice" />)).toBe("");
  });
});
