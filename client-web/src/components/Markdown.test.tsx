import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { Markdown } from "./Markdown";
import { safeUrl } from "./safeUrl";

describe("safeUrl", () => {
  it.each(["https://example.com/a?b=1", "http://localhost:8000/", "mailto:someone@example.com"])("keeps %s", (url) => {
    expect(safeUrl(url)).toBe(url);
  });

  it.each([
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    " javascript:alert(1)",
    "java\tscript:alert(1)",
    "data:text/html;base64,PHNjcmlwdD4=",
    "vbscript:msgbox(1)",
    "file:///etc/passwd",
    "/relative/path",
    "#anchor",
    "",
  ])("drops %j", (url) => {
    expect(safeUrl(url)).toBeUndefined();
  });
});

describe("Markdown", () => {
  const html = (text: string) => renderToStaticMarkup(<Markdown text={text} />);

  it("renders markdown", () => {
    expect(html("**bold** and `code`")).toContain("<strong>bold</strong>");
  });

  it("never renders raw HTML", () => {
    const out = html('<img src=x onerror="alert(1)"><script>alert(2)</script>');
    expect(out).not.toContain("<img");
    expect(out).not.toContain("<script");
  });

  it("removes unsafe link targets and keeps safe ones", () => {
    const bad = html("[click](javascript:alert(1))");
    expect(bad).not.toContain("javascript:");
    expect(bad).not.toContain("href");
    const good = html("[docs](https://example.com)");
    expect(good).toContain('href="https://example.com"');
    expect(good).toContain('rel="noopener noreferrer nofollow"');
  });

  it("drops unsafe image sources", () => {
    const out = html("![x](data:image/svg+xml;base64,AAAA)");
    expect(out).not.toContain("data:");
  });
});
