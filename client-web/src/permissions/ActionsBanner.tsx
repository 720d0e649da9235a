/**
 * Above the composer, when the person's "AI actions" switch for this conversation's employee
 * is off (turned off, or its period ran out): the employee cannot change anything, and one
 * click turns it back on. Re-read when the window gets focus and after each run.
 */
import { reveal } from "../cards/reveal";
import { useCallback, useEffect, useState } from "react";
import { api, asApiError } from "../api/client";
import type { ActionsOut } from "../api/types";
import { switchText } from "./describe";
import "./permissions.css";

export function ActionsBanner({ employee, version }: { employee: string; version?: unknown }) {
  const [state, setState] = useState<ActionsOut | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(() => {
    api.actions().then((list) => setState(list.find((a) => a.employee === employee) ?? null), () => {});
  }, [employee]);

  useEffect(() => {
    load();
    window.addEventListener("focus", load);
    return () => window.removeEventListener("focus", load);
  }, [load, version]);

  if (!state || state.on) return null;
  const turnOn = async () => {
    setBusy(true);
    setError(null);
    try {
      setState(await api.setActions(employee, true));
    } catch (e) {
      setError(asApiError(e).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="actions-banner" role="status" data-testid="actions-banner">
      <span>
        <strong>AI actions for {reveal(state.employee_name)} are off.</strong> {reveal(state.employee_name)} cannot change anything for you.{" "}
        {state.lapsed_at && <span className="muted small">{switchText(state)}</span>}
      </span>
      <button type="button" className="primary small" data-testid="actions-banner-on" disabled={busy} onClick={() => void turnOn()}>
        Turn on for {state.grant_days} days
      </button>
      {error && (
        <span className="error small" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
