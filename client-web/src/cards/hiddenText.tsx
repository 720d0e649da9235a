/**
 * Text inputs of a form (a card's Edit form, a question's answer form) that say when their
 * value holds a hidden character. An input shows a bidirectional override as it acts ("from
 * \u202eHal conv" reads "from vnoc laH") and a control character as nothing; its value cannot
 * be rewritten as `[U+202E]` (that would change what is sent back), so a line under the field
 * shows the value as the card's sentence quotes it (see ./reveal). Used by SchemaForm as
 * rjsf's `BaseInputTemplate` (every one-line input: text, email, URL, date...) and
 * `TextareaWidget`.
 */
import { getDefaultRegistry } from "@rjsf/core";
import type { BaseInputTemplateProps, WidgetProps } from "@rjsf/utils";
import type { ComponentType } from "react";
import { reveal } from "./reveal";

const defaults = getDefaultRegistry();

/** The line under a field whose value holds hidden characters; nothing for any other value. */
export function HiddenCharsNote({ value, id }: { value: unknown; id: string }) {
  if (typeof value !== "string") return null;
  const shown = reveal(value);
  if (shown === value) return null;
  return (
    <p className="hidden-chars small warning" data-testid="hidden-chars" id={`${id}__hidden`} role="note">
      This text holds hidden characters that can change how it reads. As written: “{shown}”
    </p>
  );
}

function withNote<P extends WidgetProps | BaseInputTemplateProps>(Widget: ComponentType<P>): ComponentType<P> {
  function Revealed(props: P) {
    return (
      <>
        <Widget {...props} />
        <HiddenCharsNote value={props.value} id={props.id} />
      </>
    );
  }
  return Revealed;
}

/** rjsf's one-line input, followed by the hidden-characters line. */
export const RevealingInput = withNote(defaults.templates.BaseInputTemplate as ComponentType<BaseInputTemplateProps>);

/** rjsf's text area, followed by the hidden-characters line. */
export const revealingWidgets = {
  TextareaWidget: withNote(defaults.widgets.TextareaWidget as ComponentType<WidgetProps>),
};
