/**
 * Which card renders a tool call: by tool name first, then by the tool's `card` hint
 * (GET /api/tools, from SKILL.md `cards:`), then the generic ApprovalCard.
 */
import type { CardHint, ToolCallOut, ToolOut } from "../api/types";
import { ApprovalCard } from "./approval/ApprovalCard";
import { ChoiceCard } from "./choice/ChoiceCard";
import { ConfirmCard } from "./confirm/ConfirmCard";
import { FormCard } from "./form/FormCard";
import { MarkdownCard } from "./markdown/MarkdownCard";
import type { CardComponent } from "./types";

const byToolName: Record<string, CardComponent> = {
  suggestions: ChoiceCard,
  "ask.choice": ChoiceCard,
  "ask.form": FormCard,
  "ask.confirm": ConfirmCard,
};

const byHint: Record<CardHint, CardComponent> = {
  approval: ApprovalCard,
  choice: ChoiceCard,
  form: FormCard,
  confirm: ConfirmCard,
  markdown: MarkdownCard,
};

export const fallbackCard: CardComponent = ApprovalCard;

export function cardFor(call: Pick<ToolCallOut, "name" | "card">, tool?: Pick<ToolOut, "card">): CardComponent {
  const hint = tool?.card ?? call.card;
  return own(byToolName, call.name) ?? (hint ? own(byHint, hint) : undefined) ?? fallbackCard;
}

/** A lookup that ignores inherited keys (a tool named "constructor" is not a card). */
function own<T>(table: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** A call gets a card while it waits for a person, and keeps it once decided. */
export function hasCard(call: ToolCallOut): boolean {
  return call.status === "interrupted" || call.decision != null;
}
