const ALLOWED_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);

/**
 * react-markdown `urlTransform`: keeps absolute http:, https: and mailto: URLs and
 * drops everything else (javascript:, data:, vbscript:, relative paths...), so the
 * attribute is removed from the element.
 */
export function safeUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return undefined;
  }
  return ALLOWED_PROTOCOLS.has(url.protocol) ? value.trim() : undefined;
}
