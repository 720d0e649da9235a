/** The sign-in dialog says which token was refused: the one just typed, or the saved one. */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { TokenPrompt } from "./TokenPrompt";

describe("the sign-in dialog", () => {
  it("says the token the person just typed was refused, not the saved one", () => {
    const html = renderToStaticMarkup(<TokenPrompt onSave={() => {}} hasStoredToken tokenTyped />);
    expect(html).toContain("The token you entered was not accepted");
    expect(html).not.toContain("saved token");
  });

  it("says a token saved before this page was refused", () => {
    const html = renderToStaticMarkup(<TokenPrompt onSave={() => {}} hasStoredToken tokenTyped={false} />);
    expect(html).toContain("The saved token was not accepted");
    expect(html).toContain("Forget the saved token");
  });

  it("says nothing was refused before a token is tried", () => {
    expect(renderToStaticMarkup(<TokenPrompt onSave={() => {}} hasStoredToken={false} />)).not.toContain("not accepted");
  });
});
