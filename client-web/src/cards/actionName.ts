/**
 * Accessible names of a card's buttons. A screen reader's list of buttons shows each one
 * without the card around it, so "Approve" alone does not say what it approves: the name is
 * the visible words first (so speech control by the visible label still works), then what
 * the button acts on.
 */

/** Longest subject kept in a button's name, in characters (a long summary is cut with "…"). */
export const SUBJECT_MAX_CHARS = 120;

/**
 * The accessible name of an action on a card: `Approve — Add a note: “buy milk”`.
 *
 * Args:
 *   action: The button's visible words ("Approve", "Reject", "Decline").
 *   subject: What it acts on (the card's summary, question or title); blank gives `action`.
 *
 * Returns: The name, `action — subject`, the subject on one line and at most
 *   SUBJECT_MAX_CHARS characters.
 */
export function actionName(action: string, subject: string | null | undefined): string {
  const oneLine = (subject ?? "").replace(/\s+/g, " ").trim();
  if (!oneLine || oneLine === action) return action;
  const cut = oneLine.length > SUBJECT_MAX_CHARS ? `${oneLine.slice(0, SUBJECT_MAX_CHARS - 1).trimEnd()}…` : oneLine;
  return `${action} — ${cut}`;
}
