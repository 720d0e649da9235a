/**
 * Which card renders a tool call: by tool name first, then by the tool's `card` hint,
 * then the generic ApprovalCard.
 */
import type { ToolCallOut, ToolOut } from "../api/types";
import { ApprovalCard } from "./approval/ApprovalCard";
import { ChoiceCard } from "./choice/ChoiceCard";
import type { CardComponent } from "./types";

const byToolName: Record<string, CardComponent> = {
  suggestions: ChoiceCard,
};

const byHint: Record<string, CardComponent> = {
  choice: ChoiceCard,
  approval: ApprovalCard,
};

export const fallbackCard: CardComponent = ApprovalCard;

export function cardFor(call: Pick<ToolCallOut, "name" | "card">, tool?: Pick<ToolOut, "card">): CardComponent {
  const hint = tool?.card ?? call.card;
  return byToolName[call.name] ?? (hint ? byHint[hint] : undefined) ?? fallbackCard;
}

/** A call gets a card while it waits for a person, and keeps it once decided. */
export function hasCard(call: ToolCallOut): boolean {
  return call.status === "interrupted" || call.decision != null;
}
