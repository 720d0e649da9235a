import type { DecisionOut } from "../api/types";

export function decision(over: Partial<DecisionOut> = {}): DecisionOut {
  return {
    id: "dec_1",
    type: "approve",
    user_id: "user_local",
    user_name: "local",
    args: null,
    message: null,
    proposed_args: null,
    created_at: "2025-01-01T00:00:00Z",
    ...over,
  };
}
