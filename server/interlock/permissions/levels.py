"""A tool's effective permission level for one person and employee.

Levels come from the tool (its declaration, or its skill's front matter), then the
employee's ``tool_overrides``; the person's "AI actions" switch, when off, turns every write
tool into ``DENY``. A ``DENY`` tool is never offered to the model and a call to it fails with
``permission_denied``. Grants ("don't ask again") act only on ``ASK`` and never widen a
``DENY``.
"""

from __future__ import annotations

from interlock.employees import Employee
from interlock.tools import Tool, is_question

LOAD_SKILL = "load_skill"
"""Only changes which tools are offered in the conversation: not an action, never switched off."""


def is_action(tool: Tool) -> bool:
    """True for the tools the "AI actions" switch governs: write tools (``load_skill`` aside)."""
    return tool.write and tool.name != LOAD_SKILL


def effective_permission(tool: Tool, employee: Employee, *, actions_on: bool = True) -> str:
    """Return ``ALLOW``, ``ASK`` or ``DENY`` for ``tool`` under ``employee`` and the switch.

    A question tool (one answered by the person's ``respond`` decision, such as ``ask.form``)
    always asks: without the person there is no answer, so ``ALLOW`` counts as ``ASK``.

    Args:
        tool: A registered tool.
        employee: The conversation's employee (its overrides apply to any tool).
        actions_on: The person's "AI actions" switch for this employee.
    """
    if not actions_on and is_action(tool):
        return "DENY"
    permission = employee.tool_overrides.get(tool.name, str(tool.permission))
    if permission == "ALLOW" and is_question(tool):
        return "ASK"
    return permission
