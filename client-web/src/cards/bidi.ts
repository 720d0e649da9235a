/**
 * A value quoted inside a sentence of ours, kept from reordering the sentence: an override a
 * person or a model left open in it (U+202E in "Name: Zoë\u202eevil · Age: 30") would otherwise
 * reverse everything after it on the line.
 */

/** Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069). */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/;

/**
 * `text` as one isolated run (between U+2068 FIRST STRONG ISOLATE and U+2069 POP DIRECTIONAL
 * ISOLATE, which closes whatever the value left open) when it holds a bidirectional control;
 * otherwise `text` itself. Both characters show nothing.
 */
export function bidiIsolated(text: string): string {
  return BIDI_CONTROLS.test(text) ? `\u2068${text}\u2069` : text;
}
