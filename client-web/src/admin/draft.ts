/**
 * The admin's editor state for one employee, and what Save sends: every field for a new
 * employee (POST), only the changed ones for an existing one (PATCH).
 */
import type { ApiError } from "../api/client";
import type { EmployeeCreate, EmployeeFields, EmployeeOut, EmployeePatch, ToolPermission } from "../api/types";

export const ALL_SKILLS = "*";
export const PERMISSIONS: readonly ToolPermission[] = ["ALLOW", "ASK", "DENY"];
/** A tool's choice in the editor: an override, or "default" (no override: the tool's own permission). */
export type PermissionChoice = ToolPermission | "default";

export interface Draft {
  slug: string;
  name: string;
  avatar: string;
  title: string;
  about: string;
  system_prompt: string;
  /** "" = the server's model. */
  model: string;
  greeting: string;
  /** One starter prompt per line. */
  starters: string;
  pinned_skills: string[];
  available_skills: string[];
  tool_overrides: Record<string, ToolPermission>;
  disabled: boolean;
  /** One approver per line: a user name, or `group:<name>`. */
  approvers: string;
  /** Minutes a call waits for a decision before it expires; "" = the server's default. */
  approval_minutes: string;
  /** Per-tool approval rules, kept as they are (edited over the API). */
  tool_approvals: EmployeeOut["tool_approvals"];
}

export function emptyDraft(): Draft {
  return {
    slug: "",
    name: "",
    avatar: "",
    title: "",
    about: "",
    system_prompt: "",
    model: "",
    greeting: "",
    starters: "",
    pinned_skills: [],
    available_skills: [],
    tool_overrides: {},
    disabled: false,
    approvers: "",
    approval_minutes: "",
    tool_approvals: {},
  };
}

export function draftOf(e: EmployeeOut): Draft {
  return {
    slug: e.slug,
    name: e.name,
    avatar: e.avatar,
    title: e.title,
    about: e.about,
    system_prompt: e.system_prompt,
    model: e.model ?? "",
    greeting: e.greeting,
    starters: e.starter_prompts.join("\n"),
    pinned_skills: [...e.pinned_skills],
    available_skills: [...e.available_skills],
    tool_overrides: { ...e.tool_overrides },
    disabled: e.disabled,
    approvers: (e.approvers ?? []).join("\n"),
    approval_minutes: e.approval_timeout_s == null ? "" : String(Math.round((e.approval_timeout_s / 60) * 100) / 100),
    tool_approvals: { ...(e.tool_approvals ?? {}) },
  };
}

/** Non-empty lines, trimmed. */
export function lines(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
}

export function fieldsOf(d: Draft): EmployeeFields {
  return {
    name: d.name,
    avatar: d.avatar,
    title: d.title,
    about: d.about,
    system_prompt: d.system_prompt,
    model: d.model.trim() || null,
    greeting: d.greeting,
    starter_prompts: lines(d.starters),
    pinned_skills: d.pinned_skills,
    available_skills: d.available_skills,
    tool_overrides: d.tool_overrides,
    disabled: d.disabled,
    approvers: lines(d.approvers),
    approval_timeout_s: minutesToSeconds(d.approval_minutes),
    tool_approvals: d.tool_approvals,
  };
}

/** "90" -> 5400 seconds; "" -> null (the server's default). Check the text first with
 * `minutesProblem`: a typo ("abc") would read as null here, the server's default. */
export function minutesToSeconds(text: string): number | null {
  const t = text.trim();
  if (!t) return null;
  const minutes = Number(t);
  return Number.isFinite(minutes) ? Math.round(minutes * 60 * 1000) / 1000 : null;
}

/** The longest approval timeout the server takes: 30 days, in minutes. */
export const MAX_APPROVAL_MINUTES = 30 * 24 * 60;

/**
 * Why the approval timeout text cannot be sent, in the admin's words, or null when it can
 * ("" is the server's default). "abc" was sent as null and saved the default without a word.
 */
export function minutesProblem(text: string): string | null {
  const t = text.trim();
  if (!t) return null;
  const minutes = Number(t);
  if (Number.isFinite(minutes) && minutes > 0 && minutes <= MAX_APPROVAL_MINUTES) return null;
  return (
    `Approval timeout: “${t}” is not a number of minutes from above 0 to ${MAX_APPROVAL_MINUTES.toLocaleString("en-US")} (30 days). ` +
    "Leave it empty for the server's default (24 hours)."
  );
}

/** The editor's label of each field the server may name in an error. */
const FIELD_LABELS: Record<string, string> = {
  slug: "Slug",
  name: "Name",
  avatar: "Avatar",
  title: "Title",
  model: "Model",
  about: "About",
  greeting: "Greeting",
  starter_prompts: "Starter prompts",
  system_prompt: "System prompt",
  disabled: "Disabled",
  approvers: "Approvers",
  approval_timeout_s: "Approval timeout",
  pinned_skills: "Pinned skills",
  available_skills: "Available skills",
  tool_overrides: "Tool permissions",
  tool_approvals: "Approval rules",
};

/** A field error's path as the editor labels it: "Starter prompts › 3", "Tool permissions › notes.add". */
function fieldWords(path: unknown[]): string {
  const keys = path.filter((p) => p !== "body").map(String);
  if (keys.length === 0) return "";
  const [first, ...rest] = keys;
  const head = FIELD_LABELS[first] ?? first;
  return [head, ...rest.map((k) => (/^\d+$/.test(k) ? String(Number(k) + 1) : k))].join(" › ");
}

export function createBody(d: Draft): EmployeeCreate {
  return { slug: d.slug.trim(), ...fieldsOf(d) };
}

/** The fields of `d` that differ from `original` (the PATCH body; empty = nothing to save). */
export function changes(original: EmployeeOut, d: Draft): EmployeePatch {
  const next = fieldsOf(d);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(next) as (keyof EmployeeFields)[]) {
    if (!same(original[key], next[key])) out[key] = next[key];
  }
  return out as EmployeePatch;
}

export function hasChanges(patch: EmployeePatch): boolean {
  return Object.keys(patch).length > 0;
}

export function permissionChoice(overrides: Record<string, ToolPermission>, tool: string): PermissionChoice {
  return Object.hasOwn(overrides, tool) ? overrides[tool] : "default";
}

export function withPermission(
  overrides: Record<string, ToolPermission>,
  tool: string,
  choice: PermissionChoice,
): Record<string, ToolPermission> {
  const { [tool]: _old, ...rest } = overrides;
  return choice === "default" ? rest : { ...rest, [tool]: choice };
}

/** `list` with `name` added (at the end) or removed. */
export function toggled(list: string[], name: string, on: boolean): string[] {
  const without = list.filter((n) => n !== name);
  return on ? [...without, name] : without;
}

/** Skill names for the checkboxes: the loaded ones, then any the employee names that are not loaded. */
export function skillNames(loaded: string[], d: Pick<Draft, "pinned_skills" | "available_skills">): string[] {
  const named = [...d.pinned_skills, ...d.available_skills].filter((n) => n !== ALL_SKILLS && !loaded.includes(n));
  return [...loaded, ...new Set(named)];
}

/** The lines explaining a refused save: the message, then field errors or unknown names. */
export function errorLines(err: ApiError): string[] {
  const details = (err.details ?? {}) as { errors?: unknown };
  const out = [err.message];
  if (Array.isArray(details.errors)) {
    for (const e of details.errors as { path?: unknown; message?: unknown }[]) {
      if (typeof e?.message !== "string") continue;
      const keys = Array.isArray(e?.path) ? e.path.filter((p) => p !== "body").map(String) : [];
      const label = Array.isArray(e?.path) ? fieldWords(e.path) : "";
      // Some messages already start with the key ("approval_timeout_s must be ..."): say it once.
      const own = keys.length ? keys[keys.length - 1] : "";
      const message = own && e.message.startsWith(`${own} `) ? e.message.slice(own.length + 1) : e.message;
      out.push(label ? `${label}: ${message}` : message);
    }
  }
  return out;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(normalise(a)) === JSON.stringify(normalise(b));
}

/** Objects compared regardless of key order (tool_overrides). */
function normalise(v: unknown): unknown {
  if (v && typeof v === "object" && !Array.isArray(v)) {
    return Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
  }
  return v ?? null;
}
