import type { Element, ElementContent, Root, RootContent } from "hast";
import ReactMarkdown, { type Components } from "react-markdown";
import { reveal as revealText } from "../cards/reveal";
import { safeUrl } from "./safeUrl";

const LINK_REL = "noopener noreferrer nofollow";

/** The text that stands for an image: its alt text, else "image". */
function imageLabel(alt: unknown): string {
  return (typeof alt === "string" && alt.trim()) || "image";
}

/**
 * Rehype plugin: markdown images become plain links, so the browser fetches nothing until the
 * person clicks (untrusted text could otherwise leak data through an image URL). The link's
 * href is still `src` through `urlTransform` (safeUrl); an image inside a link becomes its
 * label only (no nested anchors).
 */
export function rehypeImagesAsLinks() {
  return (tree: Root) => {
    rewrite(tree, false);
  };
}

function rewrite(parent: Root | Element, inLink: boolean): void {
  parent.children = parent.children.map((child: RootContent) => {
    if (child.type !== "element") return child;
    if (child.tagName === "img") return imageAsLink(child, inLink);
    rewrite(child, inLink || child.tagName === "a");
    return child;
  }) as typeof parent.children;
}

function imageAsLink(img: Element, inLink: boolean): ElementContent {
  const label = imageLabel(img.properties.alt);
  if (inLink) return { type: "text", value: label };
  const src = img.properties.src;
  return {
    type: "element",
    tagName: "a",
    properties: {
      href: typeof src === "string" ? src : "",
      ...(typeof img.properties.title === "string" ? { title: img.properties.title } : {}),
      className: ["markdown-image-link"],
      dataMarkdownImage: "true",
    },
    children: [{ type: "text", value: label }],
  };
}

/**
 * Rehype plugin: a bidirectional override or embedding in the text reads `[U+202E]` instead of
 * reordering what follows it, and a control character (an Escape) `[U+001B]` instead of "�"
 * (cards/reveal, the rule cards and the server follow). Untrusted text (a model's reply quoting
 * "Zoë\u202eevil! Here is what you told me", a document under review) would otherwise show
 * reversed, so it would not read as written.
 */
export function rehypeRevealBidi() {
  return (tree: Root) => {
    reveal(tree);
  };
}

function reveal(parent: Root | Element): void {
  for (const child of parent.children) {
    if (child.type === "text") {
      child.value = revealText(child.value);
    } else if (child.type === "element") {
      reveal(child);
    }
  }
}

const components: Components = {
  a: ({ node: _node, href, children, ...rest }) =>
    href ? (
      <a {...rest} href={href} target="_blank" rel={LINK_REL}>
        {children}
      </a>
    ) : (
      <span>{children}</span>
    ),
  // Never reached (rehypeImagesAsLinks rewrites every image); still never an <img>.
  img: ({ src, alt }) =>
    typeof src === "string" && src ? (
      <a href={src} target="_blank" rel={LINK_REL} className="markdown-image-link" data-markdown-image="true">
        {imageLabel(alt)}
      </a>
    ) : (
      <span>{imageLabel(alt)}</span>
    ),
};

const rehypePlugins = [rehypeImagesAsLinks, rehypeRevealBidi];

/**
 * Markdown without raw HTML (no rehype-raw: tags show as text), with only http(s)/mailto
 * URLs, and with images shown as links (nothing loads without a click).
 */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown urlTransform={safeUrl} rehypePlugins={rehypePlugins} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
