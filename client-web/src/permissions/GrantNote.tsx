/** Under a call that ran under a "don't ask again" grant: why no card asked, and where to change it. */
import type { ToolCallOut } from "../api/types";
import "./permissions.css";

export function GrantNote({ call }: { call: ToolCallOut }) {
  if (!call.grant_id) return null;
  return (
    <p className="grant-note small muted" data-testid="grant-note" data-grant-id={call.grant_id}>
      Ran without asking: you chose “Don’t ask again” for this. <a href="#/permissions">Manage in Permissions</a>
    </p>
  );
}
