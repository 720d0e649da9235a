/** Raw JSON, for people who want it: a pretty block, and the "View JSON" toggle cards use. */
import { useId, useState } from "react";
import { revealJson } from "../cards/reveal";

export function compactJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}

/**
 * Pretty JSON in a scrollable block (as text, never HTML); a bidirectional control or a control
 * character JSON leaves as it is reads as its escape (`\u202e`), see cards/reveal.
 */
export function JsonView({ value }: { value: unknown }) {
  let text: string;
  try {
    text = revealJson(JSON.stringify(value, null, 2) ?? "");
  } catch {
    text = revealJson(String(value));
  }
  return (
    <pre className="json" data-testid="json-view" tabIndex={0}>
      {text}
    </pre>
  );
}

/** "View JSON": the raw value one click away, hidden until asked for. */
export function ViewJson({ value, label = "View JSON" }: { value: unknown; label?: string }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <div className="view-json">
      <button type="button" className="link small" aria-expanded={open} aria-controls={open ? id : undefined} data-testid="view-json" onClick={() => setOpen(!open)}>
        {open ? "Hide JSON" : label}
      </button>
      {open && (
        <div id={id}>
          <JsonView value={value} />
        </div>
      )}
    </div>
  );
}
