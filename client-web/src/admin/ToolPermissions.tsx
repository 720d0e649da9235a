/**
 * Per-tool permission for one employee: a segmented control per tool (native radios, so
 * arrow keys move within a tool) with ALLOW / ASK / DENY overrides or the tool's default. A tool
 * that cannot run now (its remote MCP server is down) says why, as the MCP servers panel does.
 * A question tool (ask.*) always asks: it offers no ALLOW (the server refuses it) and says so.
 */
import { useId } from "react";
import type { ToolOut, ToolPermission } from "../api/types";
import { isQuestion } from "../cards/registry";
import { reveal } from "../cards/reveal";
import { PERMISSIONS, permissionChoice, withPermission, type PermissionChoice } from "./draft";

interface Props {
  tools: ToolOut[];
  overrides: Record<string, ToolPermission>;
  disabled: boolean;
  onChange: (overrides: Record<string, ToolPermission>) => void;
}

export function ToolPermissions({ tools, overrides, disabled, onChange }: Props) {
  return (
    <fieldset className="tool-permissions">
      <legend>Tool permissions</legend>
      <p className="muted small">ASK pauses for the person's approval; DENY refuses the call; default keeps the tool's own permission.</p>
      <ul>
        {tools.map((tool) => (
          <ToolPermissionRow
            key={tool.name}
            tool={tool}
            choice={permissionChoice(overrides, tool.name)}
            disabled={disabled}
            onChange={(choice) => onChange(withPermission(overrides, tool.name, choice))}
          />
        ))}
      </ul>
    </fieldset>
  );
}

function ToolPermissionRow({
  tool,
  choice,
  disabled,
  onChange,
}: {
  tool: ToolOut;
  choice: PermissionChoice;
  disabled: boolean;
  onChange: (choice: PermissionChoice) => void;
}) {
  const id = useId();
  const question = isQuestion({ name: tool.name, card: tool.card }, tool);
  const options: { value: PermissionChoice; label: string }[] = [
    ...PERMISSIONS.filter((p) => !(question && p === "ALLOW")).map((p) => ({ value: p, label: p })),
    { value: "default", label: `Default (${question && tool.permission === "ALLOW" ? "ASK" : tool.permission})` },
  ];
  return (
    <li className="tool-permission-row" data-available={tool.available}>
      <span className="tool-permission-name" id={`${id}-name`}>
        <code>{reveal(tool.name)}</code>
        {tool.title && <span className="muted small"> {reveal(tool.title)}</span>}
        {question && (
          <span className="muted small" data-testid="always-asks">
            {" "}
            Always asks: a question waits for the person's answer.
            {choice === "ALLOW" && " Its saved Allow has no effect."}
          </span>
        )}
        {!tool.available && tool.reason && <span className="error small"> Unavailable: {tool.reason}</span>}
      </span>
      <div
        className="segmented"
        role="radiogroup"
        aria-labelledby={`${id}-name`}
        data-testid="tool-permission"
        data-tool={tool.name}
        data-value={choice}
      >
        {options.map((o) => (
          <label key={o.value} className={o.value === choice ? "segment selected" : "segment"} data-value={o.value}>
            <input
              type="radio"
              name={`${id}-permission`}
              value={o.value}
              checked={o.value === choice}
              disabled={disabled}
              onChange={() => onChange(o.value)}
            />
            {o.label}
          </label>
        ))}
      </div>
    </li>
  );
}
