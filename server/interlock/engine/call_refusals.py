"""Why an allowed or approved tool call must not run now (it then ends ``failed``, not run).

The tool was removed meanwhile, the skill it loads is not the employee's, the tool is denied
now (by an admin, or AI actions turned off or lapsed), or its ``check`` fails now
(:mod:`interlock.engine.calls` closes the call with the refusal).
"""

from __future__ import annotations

from typing import Any

from interlock.employees import Employee
from interlock.engine.turn import LOAD_SKILL, effective_permission
from interlock.permissions import is_action
from interlock.storage import ToolCall
from interlock.tools import Tool, ToolContext, ToolError, ToolRegistry
from interlock.tools.hooks import run_check


async def refusal_now(
    registry: ToolRegistry,
    tool: Tool | None,
    employee: Employee,
    call: ToolCall,
    args: Any,
    context: ToolContext,
    on: bool,
) -> ToolError | None:
    """Why the call must not run now, or None.

    Args:
        registry: Tool registry (its default timeout bounds the ``check``).
        tool: The call's tool (None: no longer registered).
        employee: The conversation's employee.
        call: The call.
        args: The args it would run with.
        context: The tool context the ``check`` gets.
        on: The owner's "AI actions" switch for the employee.

    Returns:
        The refusal, or None when the call may run.
    """
    refusal = plain_refusal(tool, employee, call, args, on)
    if refusal is not None or tool is None:
        return refusal
    if tool.check is not None and isinstance(args, dict):
        timeout = tool.timeout_s if tool.timeout_s is not None else registry.default_timeout_s
        try:
            await run_check(tool, args, context, timeout)
        except ToolError as exc:
            return exc
    return None


def plain_refusal(
    tool: Tool | None, employee: Employee, call: ToolCall, args: Any, on: bool
) -> ToolError | None:
    """The refusals that need no tool code (:func:`refusal_now` without the ``check``)."""
    if tool is None:
        return ToolError("not_found", f"The tool {call.name!r} is no longer available.")
    if (
        tool.name == LOAD_SKILL
        and isinstance(args, dict)
        and not employee.may_load(str(args.get("name")))
    ):
        return ToolError("not_found", f"No skill {args.get('name')!r} can be loaded here.")
    if effective_permission(tool, employee, actions_on=on) == "DENY":
        # Denied after the call was proposed (an admin, or AI actions turned off or
        # lapsed): it never runs.
        return ToolError(
            "permission_denied",
            f"The tool {tool.display_name} is not allowed here."
            if on or not is_action(tool)
            else f"The tool {tool.display_name} is not allowed: AI actions are turned off.",
        )
    return None
