/** Data shared by the whole app (the caller, tool list, employees) and read by rows and cards. */
import { createContext, useContext } from "react";
import type { EmployeeOut, MeOut, ToolOut } from "../api/types";
import { reveal } from "../cards/reveal";

export interface AppData {
  me: MeOut | null;
  tools: Record<string, ToolOut>;
  /** Enabled employees (GET /api/employees), by slug. */
  employees: Record<string, EmployeeOut>;
  /** Re-reads tools and employees (after an admin changed them). */
  reload: () => void;
}

export const AppDataContext = createContext<AppData>({ me: null, tools: {}, employees: {}, reload: () => {} });

export function useAppData(): AppData {
  return useContext(AppDataContext);
}

export function isAdmin(me: MeOut | null): boolean {
  return me?.role === "admin";
}

export function indexBy<T, K extends keyof T>(items: T[], key: K): Record<string, T> {
  const out: Record<string, T> = {};
  for (const item of items) out[String(item[key])] = item;
  return out;
}

export function toolTitle(tools: Record<string, ToolOut>, name: string, fallback?: string | null): string {
  return reveal(tools[name]?.title || fallback || name);
}
