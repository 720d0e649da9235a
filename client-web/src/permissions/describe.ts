/**
 * Words for the Permissions page and the "don't ask again" choice: what a grant covers, how
 * long it lasts, where an "AI actions" switch stands. Pure functions, so they are unit-tested.
 */
import type { ActionsOut, GrantOut, RememberIn } from "../api/types";
import { reveal } from "../cards/reveal";

/** When a time falls today: "today 14:05"; otherwise "Tue 8 Dec, 14:05". */
export function when(iso: string, now: Date = new Date()): string {
  const d = new Date(iso);
  const time = d.toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  if (d.toDateString() === now.toDateString()) return `today ${time}`;
  const day = d.toLocaleDateString(undefined, { weekday: "short", day: "numeric", month: "short" });
  return `${day}, ${time}`;
}

/** "In “Shopping list”" or "All conversations with Ada". */
export function scopeText(grant: GrantOut): string {
  if (grant.scope === "conversation") {
    return grant.conversation_title ? `In “${reveal(grant.conversation_title)}”` : "In one conversation";
  }
  return `All conversations with ${grant.employee_name}`;
}

/** The args a grant is narrowed to, as "text: buy milk, id: 2", or "Any details". */
export function argsText(args: GrantOut["args"]): string {
  if (!args) return "Any details";
  const parts = Object.entries(args).map(([key, value]) => reveal(`${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`));
  return parts.length ? `Only with ${parts.join(", ")}` : "Only with no details";
}

/** "Used 3 times", "Not used yet". */
export function usesText(uses: number): string {
  if (uses === 0) return "Not used yet";
  return uses === 1 ? "Used once" : `Used ${uses} times`;
}

/** Where a switch stands, for a person. */
export function switchText(state: ActionsOut, now: Date = new Date()): string {
  if (state.on && state.on_until) return `On until ${when(state.on_until, now)}`;
  if (state.on) return "On";
  if (state.lapsed_at) return `Off since ${when(state.lapsed_at, now)} (the ${state.grant_days}-day period ran out)`;
  return "Off: write actions are not offered and not run";
}

/** The choice on an approval card, before it is sent. */
export interface RememberChoiceValue {
  on: boolean;
  scope: RememberIn["scope"];
  exactArgs: boolean;
  days: number;
}

export const REMEMBER_DAYS = [1, 7, 30] as const;

export const NO_REMEMBER: RememberChoiceValue = { on: false, scope: "conversation", exactArgs: false, days: 7 };

/** The decision's `remember` field, or undefined when "don't ask again" is not ticked. */
export function rememberBody(choice: RememberChoiceValue): RememberIn | undefined {
  if (!choice.on) return undefined;
  return { scope: choice.scope, exact_args: choice.exactArgs, days: choice.days };
}

/** What ticking the box will do, in one sentence. */
export function rememberSummary(choice: RememberChoiceValue, toolTitle: string): string {
  const where = choice.scope === "conversation" ? "in this conversation" : "in all your conversations with this employee";
  const what = choice.exactArgs ? `${toolTitle} with exactly these details` : toolTitle;
  const span = choice.days === 1 ? "1 day" : `${choice.days} days`;
  return `${what} will run without asking ${where} for ${span}. You can revoke this under Permissions.`;
}
