/** Words for people: audit outcomes, channels, durations and times. */
import type { AuditOutcome, AuditRecordOut, JsonObject, ToolOut } from "../api/types";
import { choiceMode, choseText } from "../cards/choice/choice";
import { ChoiceCard } from "../cards/choice/ChoiceCard";
import { answerRows, answerSummary, formQuestionOf } from "../cards/form/formAnswer";
import { cardFor } from "../cards/registry";

export const OUTCOME_WORDS: Record<AuditOutcome, string> = {
  approved: "Approved",
  approval: "Approved, more needed",
  edited: "Edited, then approved",
  picked: "Picked an option",
  rejected: "Rejected",
  responded: "Answered",
  allowed: "Ran without asking",
  expired: "Expired",
  cancelled: "Cancelled",
  finished_late: "Finished after it was stopped or timed out",
  created: "Token created",
  revoked: "Token revoked",
};

export const OUTCOMES = Object.keys(OUTCOME_WORDS) as AuditOutcome[];

export function outcomeWords(outcome: string): string {
  return (OUTCOME_WORDS as Record<string, string>)[outcome] ?? outcome;
}

/**
 * A record's outcome in words, as its card says it: a suggestion the person picked (a
 * `picked` record; before picks had an outcome of their own, an `edited` record of a choice
 * card) is "Chose “Pixel”", not "Edited, then approved".
 *
 * @param tool The record's tool from GET /api/tools (its card and option titles), if known.
 */
export function outcomeText(
  record: Pick<AuditRecordOut, "outcome" | "tool" | "proposed_args" | "executed_args">,
  tool?: ToolShape,
): string {
  if (record.outcome === "picked" || (record.outcome === "edited" && isSuggestion(record, tool))) {
    const chose = choseText(objectOf(record.executed_args), tool);
    if (chose) return chose;
  }
  return outcomeWords(record.outcome);
}

type ToolShape = Pick<ToolOut, "card" | "input_schema">;

function isSuggestion(record: Pick<AuditRecordOut, "tool" | "proposed_args">, tool?: ToolShape): boolean {
  const call = { name: record.tool, card: null, proposed_args: objectOf(record.proposed_args) };
  return cardFor(call, tool) === ChoiceCard && choiceMode(call, tool) === "edit";
}

function objectOf(value: unknown): JsonObject | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonObject) : null;
}

const CHANNEL_WORDS: Record<string, string> = {
  web: "Web",
  api: "API",
  mcp: "MCP",
  "ag-ui": "AG-UI client",
  system: "Automatic",
  cli: "Command line",
};

export function channelWords(channel: string): string {
  return CHANNEL_WORDS[channel] ?? channel;
}

/** `850 ms`, `12 s`, `4 min`, `2.5 h` (null: "–"). */
export function duration(ms: number | null | undefined): string {
  if (ms == null) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s < 10 ? s.toFixed(1) : Math.round(s)} s`;
  const min = s / 60;
  if (min < 60) return `${Math.round(min)} min`;
  const h = min / 60;
  return `${h < 10 ? h.toFixed(1) : Math.round(h)} h`;
}

/** A stored time in the person's locale, to the second. */
export function when(iso: string): string {
  return new Date(iso).toLocaleString(undefined, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
}

/** A `datetime-local` input value (local time) as an ISO instant, or undefined when empty. */
export function localInputToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

/**
 * A record's reason in words. An answer to a question is recorded as the client sent it (a
 * form's values as a JSON object, several chosen options as a JSON list): those read as the
 * card says them ("Name: Ann · Email: ann@example.com", "tea, coffee"); any other reason as is.
 */
export function reasonText(record: Pick<AuditRecordOut, "outcome" | "reason" | "proposed_args">): string | null {
  const { outcome, reason } = record;
  if (!reason) return null;
  if (outcome !== "responded") return reason;
  let value: unknown;
  try {
    value = JSON.parse(reason);
  } catch {
    return reason;
  }
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) {
    return value.length > 0 ? value.join(", ") : "nothing";
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    const args = record.proposed_args;
    const proposed = args !== null && typeof args === "object" && !Array.isArray(args) ? (args as JsonObject) : null;
    const { schema } = formQuestionOf({ proposed_args: proposed });
    return answerSummary(answerRows(schema, value as JsonObject));
  }
  return reason;
}
