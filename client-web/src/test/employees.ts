import type { EmployeeOut } from "../api/types";

export function employee(over: Partial<EmployeeOut> = {}): EmployeeOut {
  return {
    slug: "scout",
    name: "Scout",
    avatar: "🔭",
    title: "Intake interviewer",
    about: "Asks structured questions.",
    greeting: "Hi, I'm Scout.",
    starter_prompts: ["Ask me for my details", "Ask me to confirm"],
    builtin: true,
    disabled: false,
    model: null,
    pinned_skills: ["ask"],
    available_skills: ["suggestions"],
    tool_overrides: { "notes.add": "DENY" },
    system_prompt: "You are Scout.",
    approvers: [],
    approval_timeout_s: null,
    tool_approvals: {},
    ...over,
  };
}
