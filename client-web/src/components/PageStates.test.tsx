/** A page that cannot show its content says so with a heading, the reason and a next step. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { ApiError } from "../api/client";
import { Loading, Problem, problemWords } from "./PageStates";
import { SignInGate } from "./SignInGate";

const network = new ApiError(0, { code: "network", message: "Cannot reach the server. Check your connection, then try again." });

describe("a page that cannot reach the server", () => {
  it("has a heading, says what to do next, and offers to try again", () => {
    const html = renderToStaticMarkup(<SignInGate needToken={false} error={network} hasStoredToken={false} onSave={() => {}} onRetry={() => {}} />);
    expect(html).toMatch(/<h1[^>]*>Cannot reach the server<\/h1>/);
    expect(html).toContain("Check that you are online and that the server is running, then try again.");
    expect(html).toMatch(/<button[^>]*>Try again<\/button>/);
    expect(html).toContain('role="alert"');
    // The heading names the region a screen reader lands in.
    const id = /<h1 id="([^"]+)"/.exec(html)?.[1];
    expect(html).toContain(`aria-labelledby="${id}"`);
  });

  it("names a server error as what could not be done, with the server's reason", () => {
    const failed = new ApiError(500, { code: "internal", message: "The database is not answering." });
    const html = renderToStaticMarkup(<SignInGate needToken={false} error={failed} hasStoredToken={false} onSave={() => {}} onRetry={() => {}} />);
    expect(html).toMatch(/<h1[^>]*>Interlock could not sign you in<\/h1>/);
    expect(html).toContain("The database is not answering.");
    expect(html).toContain("If it keeps happening, tell your admin.");
  });

  it("words each kind of failure with a next step, never a raw code", () => {
    const gone = problemWords(new ApiError(404, { code: "not_found", message: "No such conversation." }), "This conversation could not be opened");
    expect(gone).toEqual({ title: "This conversation could not be opened", message: "No such conversation.", next: "It may have been deleted. Pick another one from the list." });
    for (const status of [0, 403, 404, 409, 500]) {
      const words = problemWords(new ApiError(status, { code: "some_code", message: "Why." }), "T");
      expect(`${words.title} ${words.message} ${words.next}`).not.toContain("some_code");
      expect(words.next).toMatch(/\.$/);
    }
  });

  it("a section inside a page takes a level-2 heading; loading is announced", () => {
    expect(renderToStaticMarkup(<Problem title="X could not be loaded" message="Why." next="Try again in a moment." level={2} onAction={() => {}} />)).toMatch(/<h2[^>]*>X could not be loaded<\/h2>/);
    expect(renderToStaticMarkup(<Loading />)).toBe('<p class="muted" role="status" aria-live="polite">Loading…</p>');
  });
});
