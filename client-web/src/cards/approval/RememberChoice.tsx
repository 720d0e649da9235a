/**
 * "Don't ask again" on an approval card: a checkbox, then the scope (this conversation, or
 * this employee in all the person's conversations), "only with exactly these details", and
 * how long (1, 7 or 30 days). Sent with the approve or edit decision; rejects are never
 * remembered, so the choice is not offered on a reject.
 */
import { useId } from "react";
import { REMEMBER_DAYS, rememberSummary, type RememberChoiceValue } from "../../permissions/describe";

interface Props {
  value: RememberChoiceValue;
  onChange: (next: RememberChoiceValue) => void;
  toolTitle: string;
  disabled?: boolean;
}

export function RememberChoice({ value, onChange, toolTitle, disabled }: Props) {
  const id = useId();
  const set = (patch: Partial<RememberChoiceValue>) => onChange({ ...value, ...patch });
  return (
    <fieldset className="remember-choice" data-testid="remember-choice" disabled={disabled}>
      <label className="remember-toggle">
        <input type="checkbox" data-testid="remember" checked={value.on} onChange={(e) => set({ on: e.target.checked })} />
        Don’t ask again
      </label>
      {value.on && (
        <div className="remember-options">
          <div role="radiogroup" aria-label="Where">
            <label>
              <input
                type="radio"
                name={`${id}-scope`}
                data-testid="remember-scope-conversation"
                checked={value.scope === "conversation"}
                onChange={() => set({ scope: "conversation" })}
              />
              In this conversation
            </label>
            <label>
              <input
                type="radio"
                name={`${id}-scope`}
                data-testid="remember-scope-employee"
                checked={value.scope === "employee"}
                onChange={() => set({ scope: "employee" })}
              />
              In all my conversations with this employee
            </label>
          </div>
          <label>
            <input type="checkbox" data-testid="remember-exact" checked={value.exactArgs} onChange={(e) => set({ exactArgs: e.target.checked })} />
            Only with exactly these details
          </label>
          <label>
            For{" "}
            <select data-testid="remember-days" value={value.days} onChange={(e) => set({ days: Number(e.target.value) })}>
              {REMEMBER_DAYS.map((d) => (
                <option key={d} value={d}>
                  {d === 1 ? "1 day" : `${d} days`}
                </option>
              ))}
            </select>
          </label>
          <p className="muted small" data-testid="remember-summary">
            {rememberSummary(value, toolTitle)}
          </p>
        </div>
      )}
    </fieldset>
  );
}
