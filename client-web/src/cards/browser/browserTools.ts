/**
 * The built-in frontend tools: they run in the person's browser (execution="frontend").
 * - `browser.time_zone` (ALLOW): the IANA time zone of this browser (Intl).
 * - `browser.selection` (ASK): the text the person last selected on the page. The card takes
 *   the focus away from the page, so the last non-empty selection is tracked as it happens.
 */
import type { InvokeResult } from "../frontend/types";

let lastSelection = "";
let tracking = false;

/** Starts remembering the last non-empty selection of `doc` (idempotent). */
export function trackSelection(doc: Document | undefined = typeof document === "undefined" ? undefined : document): void {
  if (tracking || !doc) return;
  tracking = true;
  doc.addEventListener("selectionchange", () => {
    // Text selected inside a field (the card's own inputs) is not "the page's" selection.
    const active = doc.activeElement;
    if (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement) return;
    const text = doc.getSelection()?.toString() ?? "";
    if (text.trim()) lastSelection = text;
  });
}

/** The last non-empty text selected on the page ("" when none yet). */
export function currentSelection(): string {
  return lastSelection;
}

/** For tests: sets the remembered selection. */
export function setSelectionForTest(text: string): void {
  lastSelection = text;
}

export function browserTimeZone(): InvokeResult {
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  // Shown on the page and read by the model, so it names neither: no "the person's", no "your".
  return { text: `Browser time zone: ${zone}.`, data: { time_zone: zone } };
}

export function browserSelection(): InvokeResult {
  const text = currentSelection();
  if (!text.trim()) return { text: "Nothing is selected on the page.", data: { text: "" } };
  return { text: `The selected text:\n${text}`, data: { text } };
}

trackSelection();
