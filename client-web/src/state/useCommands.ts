/** The slash commands available to an employee (GET /api/employees/{slug}/commands). */
import { useEffect, useState } from "react";
import { api } from "../api/client";
import type { SlashCommandOut } from "../api/types";

const NONE: SlashCommandOut[] = [];

/**
 * The employee's commands; `known` is false while they load or when they could not be read
 * (then the composer checks no command itself and leaves it to the server).
 */
export function useCommandList(employee: string | null): { commands: SlashCommandOut[]; known: boolean } {
  const [loaded, setLoaded] = useState<{ employee: string; commands: SlashCommandOut[]; known: boolean } | null>(null);

  useEffect(() => {
    if (!employee) return;
    let cancelled = false;
    api.commands(employee).then(
      (commands) => !cancelled && setLoaded({ employee, commands, known: true }),
      // No menu then; typed commands still go to the server, which resolves them.
      () => !cancelled && setLoaded({ employee, commands: NONE, known: false }),
    );
    return () => {
      cancelled = true;
    };
  }, [employee]);

  return loaded && loaded.employee === employee ? loaded : { commands: NONE, known: false };
}
