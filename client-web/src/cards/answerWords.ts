/**
 * A question's answer in the person's words, from the call's recorded decision: a form's
 * fields ("Name: Ann · Age: 33"), the chosen options ("tea, coffee"), a suggestion picked
 * on its card ("Miso"). The call's result is that answer worded for the model (a form's JSON,
 * "The person chose: Miso"), which is not the person's to read.
 */
import type { ToolCallOut } from "../api/types";
import { reveal } from "./reveal";
import { answeredOptions } from "./choice/choice";
import { answerRows, answerSummary, formQuestionOf, submittedValues } from "./form/formAnswer";

export function answerWords(call: Pick<ToolCallOut, "decision" | "proposed_args" | "executed_args">): string | null {
  const d = call.decision;
  if (!d) return null;
  if (d.type === "respond") {
    const values = submittedValues(call);
    if (values) return answerSummary(answerRows(formQuestionOf(call).schema, values));
    const options = answeredOptions(call);
    if (options.length > 0) return options.map(reveal).join(", ");
    return d.message ? reveal(d.message) : null;
  }
  const option = call.executed_args?.option;
  return typeof option === "string" ? reveal(option) : null;
}
