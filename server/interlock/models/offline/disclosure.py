"""Progressive disclosure: which skills can be loaded, which were loaded, who provides a tool.

A skill's tools are bound only once the skill is active, so the offline model reads the "Skills
you can load" section of the system prompt (:func:`loadable_skills`), the ``load_skill`` calls
already made this turn (:func:`loaded_this_turn`) and the skill behind a tool (:func:`skill_of`)
to decide whether to call ``load_skill`` first.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from interlock.models.offline.tool_names import LOAD_SKILL, TOOL_SKILLS

ACTIONS_OFF_RE = re.compile(r"turned\s+AI\s+actions\s+off\s+for\s+you", re.IGNORECASE)
"""The engine's system-prompt note while the person's "AI actions" switch is off
(``interlock.engine.turn.ACTIONS_OFF_NOTE``)."""

_LOADABLE_HEADER_RE = re.compile(r"skills\s+you\s+can\s+load", re.IGNORECASE)
_LOADABLE_ITEM_RE = re.compile(
    r"^\s*[-*•]\s+[`*]*([A-Za-z0-9_-]+)[`*]*\s*(?:(?::|—|\u2013|\s-\s)\s*(.*?))?\s*$"
)


def loadable_skills(messages: Iterable[BaseMessage]) -> dict[str, str]:
    """Read the skills the system prompt offers to load.

    The engine's system prompt has a section like ``Skills you can load:`` followed by lines
    ``- <name>: <description>``; blank lines before the first item are skipped and the list
    ends at the first line that is not an item.

    Args:
        messages: The conversation (only system messages are read).

    Returns:
        ``{name: description}`` in listing order; empty when no such section exists.
    """
    skills: dict[str, str] = {}
    for message in messages:
        if not isinstance(message, SystemMessage):
            continue
        in_section = False
        started = False
        for line in message.text.splitlines():
            if _LOADABLE_HEADER_RE.search(line):
                in_section, started = True, False
                continue
            if not in_section:
                continue
            found = _LOADABLE_ITEM_RE.match(line)
            if found:
                skills.setdefault(found.group(1), found.group(2) or "")
                started = True
            elif line.strip() or started:
                in_section = False
    return skills


def actions_off(messages: Iterable[BaseMessage]) -> bool:
    """Whether a system message says the person turned AI actions off for this employee."""
    return any(
        isinstance(m, SystemMessage) and ACTIONS_OFF_RE.search(m.text) is not None for m in messages
    )


def loaded_this_turn(messages: Sequence[BaseMessage]) -> frozenset[str]:
    """Return the skills ``load_skill`` was called for since the last human message.

    Args:
        messages: The conversation.

    Returns:
        Skill names; used so the model never asks to load the same skill twice in a turn.
    """
    names: set[str] = set()
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            break
        if isinstance(message, AIMessage):
            for call in message.tool_calls:
                name = call["args"].get("name")
                if call["name"] == LOAD_SKILL and isinstance(name, str):
                    names.add(name)
    return frozenset(names)


def skill_of(tool_name: str, loadable: Iterable[str] = ()) -> str | None:
    """Return the skill that provides a tool.

    Args:
        tool_name: Provider-safe tool name (``ask_form``).
        loadable: Skill names that could be loaded; a tool named ``<skill>`` or
            ``<skill>_<rest>`` belongs to the longest such name.

    Returns:
        The skill name, or None when unknown.
    """
    if tool_name in TOOL_SKILLS:
        return TOOL_SKILLS[tool_name]
    owners = [s for s in loadable if tool_name == s or tool_name.startswith(f"{s}_")]
    return max(owners, key=len) if owners else None
