import ReactMarkdown, { type Components } from "react-markdown";
import { safeUrl } from "./safeUrl";

const components: Components = {
  a: ({ node: _node, href, children, ...rest }) =>
    href ? (
      <a {...rest} href={href} target="_blank" rel="noopener noreferrer nofollow">
        {children}
      </a>
    ) : (
      <span>{children}</span>
    ),
  img: ({ node: _node, src, alt }) =>
    typeof src === "string" && src ? <img src={src} alt={alt ?? ""} loading="lazy" /> : <span>{alt}</span>,
};

/** Markdown without raw HTML (no rehype-raw: tags show as text) and with only http(s)/mailto URLs. */
export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown urlTransform={safeUrl} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
