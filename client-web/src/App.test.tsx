import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";

describe("App before sign-in", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("renders none of the shell until the server has said who the person is", async () => {
    vi.stubGlobal("window", { location: { hash: "#/approvals" } });
    const { App } = await import("./App");
    const html = renderToStaticMarkup(<App />);
    expect(html).toContain('data-testid="signed-out"');
    expect(html).toContain("Signing in");
    expect(html).not.toContain('id="sidebar"');
    expect(html).not.toContain("AI employees that ask");
    expect(html).not.toContain("Interlock</span>");
  });
});
