/** Data shared by the whole app (tool list, employees) and read by rows and cards. */
import { createContext, useContext } from "react";
import type { EmployeeOut, ToolOut } from "../api/types";

export interface AppData {
  tools: Record<string, ToolOut>;
  employees: Record<string, EmployeeOut>;
}

export const AppDataContext = createContext<AppData>({ tools: {}, employees: {} });

export function useAppData(): AppData {
  return useContext(AppDataContext);
}

export function indexBy<T, K extends keyof T>(items: T[], key: K): Record<string, T> {
  const out: Record<string, T> = {};
  for (const item of items) out[String(item[key])] = item;
  return out;
}

export function toolTitle(tools: Record<string, ToolOut>, name: string, fallback?: string | null): string {
  return tools[name]?.title || fallback || name;
}
