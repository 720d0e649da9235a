/**
 * The one card registry, keyed by tool name. Which card renders a call: by tool name first,
 * then by the tool's `card` hint (GET /api/tools, from SKILL.md `cards:`), then the generic
 * ApprovalCard. A tool name may also carry an `invoke`: how the browser runs a tool declared
 * `execution="frontend"` (see ./frontend).
 *
 * A developer adds their own in any module (see README, "Write your own card"):
 *
 *     registerTool("weather.show", { card: WeatherCard, invoke: async (args) => ({ text: "..." }) });
 */
import type { CardHint, ToolCallOut, ToolOut } from "../api/types";
import { ApprovalCard } from "./approval/ApprovalCard";
import { browserSelection, browserTimeZone } from "./browser/browserTools";
import { ChoiceCard } from "./choice/ChoiceCard";
import { ConfirmCard } from "./confirm/ConfirmCard";
import { DocumentCard } from "./document/DocumentCard";
import { FormCard } from "./form/FormCard";
import type { Invoke } from "./frontend/types";
import { MarkdownCard } from "./markdown/MarkdownCard";
import type { CardComponent } from "./types";

/** What the client knows about one tool name: its card and/or its browser-side `invoke`. */
export interface ToolUi {
  card?: CardComponent;
  invoke?: Invoke;
}

const byToolName = new Map<string, ToolUi>();

/**
 * Registers a card and/or an `invoke` for a tool name (a later registration replaces an
 * earlier one). Returns a function that restores what was there before.
 */
export function registerTool(name: string, ui: ToolUi): () => void {
  if (!name) throw new Error("registerTool: a tool name is required");
  if (!ui.card && !ui.invoke) throw new Error(`registerTool(${JSON.stringify(name)}): give a card, an invoke, or both`);
  const before = byToolName.get(name);
  byToolName.set(name, { ...ui });
  return () => {
    if (before) byToolName.set(name, before);
    else byToolName.delete(name);
  };
}

/** The registration for a tool name, if any. */
export function toolUi(name: string): ToolUi | undefined {
  return byToolName.get(name);
}

/** The browser-side runner of a frontend tool, if this client has one. */
export function invokerFor(name: string): Invoke | undefined {
  return byToolName.get(name)?.invoke;
}

// Built-ins.
registerTool("suggestions", { card: ChoiceCard });
registerTool("ask.choice", { card: ChoiceCard });
registerTool("ask.form", { card: FormCard });
registerTool("ask.confirm", { card: ConfirmCard });
registerTool("documents.write", { card: DocumentCard });
registerTool("browser.time_zone", { invoke: browserTimeZone });
registerTool("browser.selection", { invoke: browserSelection });

const byHint: Record<CardHint, CardComponent> = {
  approval: ApprovalCard,
  choice: ChoiceCard,
  form: FormCard,
  confirm: ConfirmCard,
  markdown: MarkdownCard,
};

export const fallbackCard: CardComponent = ApprovalCard;

export function cardFor(call: Pick<ToolCallOut, "name" | "card">, tool?: Pick<ToolOut, "card">): CardComponent {
  const named = byToolName.get(call.name)?.card;
  if (named) return named;
  const hint = tool?.card ?? call.card;
  return (hint ? own(byHint, hint) : undefined) ?? fallbackCard;
}

/** Cards that ask the person a question (answered, not approved). */
const QUESTION_CARDS: ReadonlySet<CardComponent> = new Set([ChoiceCard, FormCard, ConfirmCard]);

/** True when the call's card is a question (Approve all leaves those to the person). */
export function isQuestion(call: Pick<ToolCallOut, "name" | "card">, tool?: Pick<ToolOut, "card">): boolean {
  return QUESTION_CARDS.has(cardFor(call, tool));
}

/** A lookup that ignores inherited keys (a tool named "constructor" is not a card). */
function own<T>(table: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** A call gets a card while it waits for a person, and keeps it once decided. */
export function hasCard(call: ToolCallOut): boolean {
  return call.status === "interrupted" || call.decision != null;
}
