import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { RunErrorBanner } from "./RunErrorBanner";

describe("RunErrorBanner", () => {
  it("shows the sentence for the person and keeps the code out of the text", () => {
    const html = renderToStaticMarkup(
      <RunErrorBanner
        runError={{ runId: "run_1", error: { code: "model_error", message: "The model could not be reached." } }}
        onDismiss={() => {}}
      />,
    );
    expect(html).toContain("The model could not be reached.");
    expect(html).toContain('data-code="model_error"');
    expect(html.replace(/<[^>]*>/g, "")).not.toContain("model_error");
  });

  it("renders nothing without an error", () => {
    expect(renderToStaticMarkup(<RunErrorBanner runError={null} onDismiss={() => {}} />)).toBe("");
  });
});
