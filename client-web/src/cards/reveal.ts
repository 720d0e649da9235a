/**
 * Text a tool, a model or a person wrote, as a card and the Approvals and Audit pages show it:
 * the README's rule, the same as the server's `interlock.text.reveal_hidden`.
 *
 * A bidirectional embedding, override or isolate (U+202A–U+202E, U+2066–U+2069) would reorder
 * what follows it ("from \u202eHal conv" would read "from vnoc laH"), and a control character
 * (an Escape, a Bell, DEL, C1 controls) shows as nothing or "�": each reads `[U+202E]`,
 * `[U+001B]` instead, so the value reads as it was written and as the card's sentence quotes
 * it. Tab, line feed and carriage return are text and kept. What is sent back (an edit, an
 * answer, Copy, Download) is the text itself, never this display form.
 */

/** Bidirectional controls, and control characters other than tab, line feed and carriage return. */
const HIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** The code of one hidden character as `U+001B`. */
function code(c: string): string {
  return (c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
}

/**
 * `text` with each bidirectional control and control character written as `[U+202E]`,
 * `[U+001B]`; `text` itself when it holds none. Applying it twice changes nothing more.
 */
export function reveal(text: string): string {
  return text.replace(HIDDEN, (c) => `[U+${code(c)}]`);
}

/** `text` without its hidden characters: for what is drawn from it, not quoted (an avatar's initials). */
export function unhidden(text: string): string {
  return text.replace(HIDDEN, "");
}

/**
 * JSON text (from `JSON.stringify`, which escapes only U+0000–U+001F) with the other hidden
 * characters escaped as `\u202e`: still the same JSON, and it reads as written.
 */
export function revealJson(json: string): string {
  return json.replace(HIDDEN, (c) => `\\u${code(c).toLowerCase()}`);
}

/** How many characters (code points, as the server counts `result_chars`) `text` holds: "🦊" is one. */
export function charCount(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}

/** The first `limit` characters (code points) of `text`, never half of an emoji. */
export function sliceChars(text: string, limit: number): string {
  if (text.length <= limit) return text;
  let units = 0;
  for (let n = 0; n < limit && units < text.length; n++) {
    const unit = text.charCodeAt(units);
    const pair = unit >= 0xd800 && unit <= 0xdbff && units + 1 < text.length && (text.charCodeAt(units + 1) & 0xfc00) === 0xdc00;
    units += pair ? 2 : 1;
  }
  return text.slice(0, units);
}
