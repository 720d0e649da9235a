/**
 * An employee's avatar: an emoji or short text (an http(s) image URL also works); decorative.
 * An emoji this browser cannot draw (no emoji font: it would show as an empty box) falls back
 * to the name's initials.
 */
import { reveal, unhidden } from "../cards/reveal";
import { useMemo } from "react";
import { safeUrl } from "./safeUrl";

export function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => [...w][0]!.toUpperCase())
    .join("");
}

const PICTOGRAPHIC = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;
const drawable = new Map<string, boolean>();

/**
 * Whether the browser draws `text` as something other than its "missing glyph" box: colour
 * pixels (a colour emoji font), or pixels unlike those of a code point no font has (U+10FFFD,
 * private use). True when it cannot tell (no canvas, e.g. in unit tests).
 */
export function canRender(text: string): boolean {
  if (!PICTOGRAPHIC.test(text)) return true;
  const known = drawable.get(text);
  if (known !== undefined) return known;
  let result = true;
  try {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 32;
    const ctx = canvas.getContext("2d", { willReadFrequently: true });
    if (ctx) {
      const pixels = (s: string) => {
        ctx.clearRect(0, 0, 32, 32);
        ctx.font = "24px sans-serif";
        ctx.textBaseline = "top";
        ctx.fillStyle = "#000";
        ctx.fillText(s, 0, 4);
        return ctx.getImageData(0, 0, 32, 32).data;
      };
      const drawn = pixels(text);
      const missing = pixels("\u{10FFFD}");
      let colour = false;
      for (let i = 0; i < drawn.length && !colour; i += 4) colour = drawn[i] !== drawn[i + 1] || drawn[i] !== drawn[i + 2];
      const blank = drawn.every((v) => v === 0);
      result = colour || (!blank && !drawn.every((v, i) => v === missing[i]));
    }
  } catch {
    result = true;
  }
  drawable.set(text, result);
  return result;
}

export function Avatar({ avatar, name, size = "md" }: { avatar: string; name: string; size?: "sm" | "md" | "lg" }) {
  const trimmed = avatar.trim();
  const url = /^https?:/i.test(trimmed) ? safeUrl(trimmed) : undefined;
  const shown = useMemo(() => (url || !trimmed || canRender(trimmed) ? trimmed : ""), [url, trimmed]);
  const fallback = !url && !shown;
  return (
    <span className={`avatar avatar-${size}${fallback ? " avatar-initials" : ""}`} aria-hidden="true" data-testid="avatar" data-avatar={trimmed}>
      {url ? <img src={url} alt="" /> : (shown && reveal(shown)) || initials(unhidden(name)) || "?"}
    </span>
  );
}
