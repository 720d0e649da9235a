/**
 * A choice among options. Two kinds (see ./choice.ts):
 * - `suggestions` (args {options: string[], option?: string}): a click decides with
 *   {type: "edit", args: {...proposed_args, option}};
 * - `ask.choice` (args {question, options, multiple?}): answered with a respond (QuestionChoice).
 */
import { useState } from "react";
import { actionName } from "../actionName";
import { DecisionSummary } from "../DecisionSummary";
import { reveal } from "../reveal";
import { DECLINED, decline } from "../decline";
import type { CardProps } from "../types";
import { choiceMode, choseText } from "./choice";
import { QuestionChoice } from "./QuestionChoice";

export function chosenOption(call: CardProps["call"]): string | null {
  const fromDecision = call.decision?.args?.option;
  if (typeof fromDecision === "string") return fromDecision;
  const executed = call.executed_args?.option;
  if (call.decision && typeof executed === "string") return executed;
  return null;
}

export function ChoiceCard(props: CardProps) {
  return choiceMode(props.call, props.tool) === "respond" ? <QuestionChoice {...props} /> : <SuggestionChoice {...props} />;
}

/** The heading of a suggestions card: the `question` the model asked, else the tool's title. */
export function suggestionHeading(call: CardProps["call"], title: string): string {
  const q = call.proposed_args?.question;
  return reveal(typeof q === "string" && q.trim() ? q : title);
}

function SuggestionChoice({ call, tool, title, live, busy, decide }: CardProps) {
  const [error, setError] = useState<string | null>(null);
  const proposed = call.proposed_args ?? {};
  const heading = suggestionHeading(call, title);
  const options = Array.isArray(proposed.options) ? proposed.options.map(String) : [];
  const chosen = chosenOption(call);
  const clickable = live && !busy;

  const choose = async (option: string) => {
    setError(null);
    const err = await decide({ type: "edit", args: { ...proposed, option } });
    if (err && err.status !== 409) setError(err.message);
  };

  return (
    <section className="card choice-card" aria-label={`Choice: ${heading}`}>
      <header className="card-head">
        <h4 data-testid="choice-question">{heading}</h4>
      </header>
      <div className="choices" role="group" aria-label={heading}>
        {options.map((option, i) => {
          const isChosen = chosen === option;
          return (
            <button
              key={`${i}:${option}`}
              type="button"
              data-testid="choice-option"
              data-chosen={isChosen ? "true" : "false"}
              aria-pressed={isChosen ? "true" : "false"}
              className={isChosen ? "choice chosen" : "choice"}
              disabled={!clickable}
              onClick={() => void choose(option)}
            >
              {reveal(option)}
            </button>
          );
        })}
        {options.length === 0 && <p className="muted small">No options were proposed.</p>}
      </div>
      {live && (
        <div className="actions">
          <button type="button" className="danger" data-testid="choice-decline" disabled={!clickable} aria-label={actionName("Decline", heading)} onClick={() => void decline(decide).then(setError)}>
            Decline
          </button>
        </div>
      )}
      {call.decision && (
        <DecisionSummary call={call} showArgs={false} rejected={DECLINED} chosen={choseText(chosen != null ? { option: chosen } : null, tool) ?? "Approved without a choice"} />
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
