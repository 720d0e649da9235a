/** The slash commands available to an employee (GET /api/employees/{slug}/commands). */
import { useEffect, useState } from "react";
import { api } from "../api/client";
import type { SlashCommandOut } from "../api/types";

const NONE: SlashCommandOut[] = [];

export function useCommands(employee: string | null): SlashCommandOut[] {
  const [loaded, setLoaded] = useState<{ employee: string; commands: SlashCommandOut[] } | null>(null);

  useEffect(() => {
    if (!employee) return;
    let cancelled = false;
    api.commands(employee).then(
      (commands) => !cancelled && setLoaded({ employee, commands }),
      // No menu then; typed commands still go to the server, which resolves them.
      () => !cancelled && setLoaded({ employee, commands: NONE }),
    );
    return () => {
      cancelled = true;
    };
  }, [employee]);

  return loaded && loaded.employee === employee ? loaded.commands : NONE;
}
