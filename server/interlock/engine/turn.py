"""What one model call may see and do: the prompt, the tools offered and their permissions.

Progressive disclosure: the model sees every skill the employee may load (name and
description), the instructions and tools of the active ones only (pinned by the employee, or
loaded in this conversation with ``load_skill``). Levels (``ALLOW`` / ``ASK`` / ``DENY``) come
from :mod:`interlock.permissions`: the tool, the employee's overrides and the person's "AI
actions" switch; a ``DENY`` tool is never offered and a call to it is refused with
``permission_denied``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from interlock.employees import Employee
from interlock.permissions import effective_permission
from interlock.permissions.levels import LOAD_SKILL
from interlock.skills import SkillCatalog
from interlock.tools import Permission, Tool, ToolRegistry

__all__ = ["ACTIONS_OFF_NOTE", "LOAD_SKILL", "TurnPlan", "effective_permission", "plan_turn"]

ACTIONS_OFF_NOTE = (
    "The person has turned AI actions off for you: tools that change things are not available "
    "now. If they ask you to change something, say so and tell them they can turn AI actions "
    "on under Permissions."
)
"""Added to the system prompt while the person's "AI actions" switch is off."""


@dataclass
class TurnPlan:
    """The result of :func:`plan_turn`.

    Attributes:
        system_prompt: Employee prompt + loadable skills + active skills' instructions.
        offered: Tools bound to the model, in name order.
        permissions: Effective ``ALLOW`` / ``ASK`` of each offered tool, by name.
        denied: Registered tools the employee denies.
        active_skills: Skills whose tools are offered.
        loadable_skills: Skills the model may still load.
        actions_on: The owner's "AI actions" switch for the employee.
        employee: The employee's slug.
    """

    system_prompt: str
    offered: list[Tool]
    permissions: dict[str, Permission]
    denied: set[str] = field(default_factory=set)
    active_skills: list[str] = field(default_factory=list)
    loadable_skills: list[str] = field(default_factory=list)
    actions_on: bool = True
    employee: str = ""


class SkillsLoaded(Protocol):
    """What :func:`plan_turn` reads of a conversation: a stored conversation, or its row."""

    @property
    def loaded_skills(self) -> list[str] | None: ...


def plan_turn(
    conversation: SkillsLoaded,
    employee: Employee,
    catalog: SkillCatalog,
    registry: ToolRegistry,
    *,
    actions_on: bool = True,
) -> TurnPlan:
    """Work out the prompt and tools for the next model call of ``conversation``.

    Args:
        conversation: The conversation (its ``loaded_skills``).
        employee: Its employee.
        catalog: Loaded skills.
        registry: Tool registry.
        actions_on: The owner's "AI actions" switch for the employee; off denies write tools.
    """
    usable = [s for s in catalog.loaded() if employee.may_load(s.name)]
    active_names = set(employee.pinned_skills) | set(conversation.loaded_skills or [])
    active = [s for s in usable if s.name in active_names]
    loadable = [s for s in usable if s.name not in active_names]
    active_set = {s.name for s in active}

    offered: list[Tool] = []
    permissions: dict[str, Permission] = {}
    denied: set[str] = set()
    for tool in registry.tools():
        permission = effective_permission(tool, employee, actions_on=actions_on)
        if permission == "DENY":
            denied.add(tool.name)
            continue
        if tool.skill is not None and tool.skill not in active_set:
            continue
        if tool.name == LOAD_SKILL and not loadable:
            continue
        if tool.unavailable_reason() is not None:  # its remote MCP server is down
            continue
        offered.append(tool)
        permissions[tool.name] = Permission(permission)

    parts = [employee.system_prompt.strip()]
    if not actions_on:
        parts.append(ACTIONS_OFF_NOTE)
    if loadable and LOAD_SKILL not in denied:
        lines = "\n".join(f"- {s.name}: {s.description}" for s in loadable)
        parts.append(
            "Skills you can load (call load_skill with the name to get their tools and "
            f"instructions):\n{lines}"
        )
    for skill in active:
        if skill.instructions.strip():
            parts.append(f"## Skill: {skill.name}\n{skill.instructions.strip()}")
    return TurnPlan(
        system_prompt="\n\n".join(p for p in parts if p),
        offered=offered,
        permissions=permissions,
        denied=denied,
        active_skills=sorted(active_set),
        loadable_skills=[s.name for s in loadable],
        actions_on=actions_on,
        employee=employee.slug,
    )
