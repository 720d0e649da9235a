/** Declining a question (ask.form, ask.choice): a reject decision, no reason asked. */
import type { DecisionIn } from "../api/types";
import type { CardProps } from "./types";

/** The decision a Decline button posts. */
export const DECLINE: DecisionIn = { type: "reject" };

/** How a declined question reads in its decision summary. */
export const DECLINED = "Declined";

/** Posts the decline; resolves to the message to show (null on success or a 409 the host handles). */
export async function decline(decide: CardProps["decide"]): Promise<string | null> {
  const err = await decide(DECLINE);
  return err && err.status !== 409 ? err.message : null;
}
