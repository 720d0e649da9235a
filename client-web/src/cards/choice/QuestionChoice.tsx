/**
 * `ask.choice`: a question with options. Single: a click answers with the option.
 * Multiple: checkboxes and a submit answering with a JSON list. Once decided the chosen
 * options are highlighted (data-chosen="true") and nothing is clickable. Decline rejects the
 * question instead (shown as "Declined").
 */
import { useId, useState } from "react";
import { actionName } from "../actionName";
import { DecisionSummary } from "../DecisionSummary";
import { reveal } from "../reveal";
import { DECLINED, decline } from "../decline";
import type { CardProps } from "../types";
import { answeredOptions, choiceMessage, questionOf } from "./choice";

export function QuestionChoice({ call, title, live, busy, decide }: CardProps) {
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const questionId = useId();
  const q = questionOf(call);
  const answered = new Set(answeredOptions(call));
  const clickable = live && !busy;

  const answer = async (chosen: Iterable<string>) => {
    setError(null);
    const err = await decide({ type: "respond", message: choiceMessage(q, chosen) });
    if (err && err.status !== 409) setError(err.message);
  };

  const onDecline = async () => {
    setError(null);
    setError(await decline(decide));
  };

  const declineButton = (
    <button type="button" className="danger" data-testid="choice-decline" disabled={!clickable} aria-label={actionName("Decline", q.question || title)} onClick={() => void onDecline()}>
      Decline
    </button>
  );

  const toggle = (option: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(option);
    else next.delete(option);
    setSelected(next);
  };

  return (
    <section className="card choice-card" aria-label={`Choice: ${q.question || title}`}>
      <header className="card-head">
        <h4>{reveal(title)}</h4>
      </header>
      {q.question && (
        <p className="card-question" id={questionId}>
          {reveal(q.question)}
        </p>
      )}
      {q.multiple ? (
        <form
          className="choice-form"
          onSubmit={(e) => {
            e.preventDefault();
            void answer(selected);
          }}
        >
          <fieldset className="choices" aria-labelledby={q.question ? questionId : undefined}>
            {q.options.map((option, i) => {
              const isChosen = call.decision ? answered.has(option) : selected.has(option);
              return (
                <label key={`${i}:${option}`} className={isChosen ? "choice check chosen" : "choice check"} data-testid="choice-option" data-chosen={isChosen ? "true" : "false"}>
                  <input type="checkbox" checked={isChosen} disabled={!clickable} onChange={(e) => toggle(option, e.target.checked)} />
                  {reveal(option)}
                </label>
              );
            })}
          </fieldset>
          {live && (
            <div className="actions">
              <button type="submit" className="primary" data-testid="choice-submit" disabled={!clickable || selected.size === 0} aria-label={actionName("Submit", q.question)}>
                Submit
              </button>
              {declineButton}
            </div>
          )}
        </form>
      ) : (
        <div className="choices" role="group" aria-labelledby={q.question ? questionId : undefined} aria-label={q.question ? undefined : "Options"}>
          {q.options.map((option, i) => {
            const isChosen = answered.has(option);
            return (
              <button
                key={`${i}:${option}`}
                type="button"
                data-testid="choice-option"
                data-chosen={isChosen ? "true" : "false"}
                aria-pressed={isChosen ? "true" : "false"}
                className={isChosen ? "choice chosen" : "choice"}
                disabled={!clickable}
                onClick={() => void answer([option])}
              >
                {reveal(option)}
              </button>
            );
          })}
        </div>
      )}
      {q.options.length === 0 && <p className="muted small">No options were proposed.</p>}
      {live && !q.multiple && <div className="actions">{declineButton}</div>}
      <DecisionSummary call={call} showArgs={false} rejected={DECLINED} answer={answered.size > 0 ? [...answered].join(", ") : null} />
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
