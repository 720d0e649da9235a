import type { ComponentType } from "react";
import type { ApiError } from "../api/client";
import type { DecisionIn, ToolCallOut, ToolOut } from "../api/types";

export interface CardProps {
  call: ToolCallOut;
  /** The tool from GET /api/tools (input_schema, description); undefined if unknown. */
  tool: ToolOut | undefined;
  title: string;
  /** Interrupted, undecided and owned by the viewer: the person can decide now. */
  live: boolean;
  /**
   * False when the viewer may not approve or edit (a call needing an approver, in the viewer's
   * own conversation): only Reject is offered. Absent means true.
   */
  canApprove?: boolean;
  /** A decision POST is in flight. */
  busy: boolean;
  /** Posts the decision; resolves to the error (null on success). 409s are handled by the host. */
  decide: (body: DecisionIn) => Promise<ApiError | null>;
}

export type CardComponent = ComponentType<CardProps>;
