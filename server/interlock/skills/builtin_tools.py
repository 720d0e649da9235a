"""Core tools that belong to no skill: ``load_skill``.

``load_skill`` lets the model activate a skill in a conversation (progressive disclosure, see
docs/skills-and-employees.md): it records the skill in ``Conversation.loaded_skills`` and
returns the skill's instructions and tool names. Whether the employee may load that skill is
checked by the engine before the call runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from interlock.storage import Conversation
from interlock.tools import Permission, Tool, ToolAnnotations, ToolContext, ToolError, ToolResult

if TYPE_CHECKING:
    from interlock.skills.catalog import SkillCatalog
    from interlock.tools import ToolRegistry

LOAD_SKILL = "load_skill"

LOAD_SKILL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "title": "Skill",
            "minLength": 1,
            "maxLength": 100,
            # Shown to the person as the field's help on the call's card: their words. What the
            # model needs (where the names are listed) is in the tool's description.
            "description": "The name of the skill to load.",
        }
    },
    "required": ["name"],
    "additionalProperties": False,
}


def load_skill_tool(catalog: SkillCatalog, registry: ToolRegistry | None = None) -> Tool:
    """Build the ``load_skill`` tool (ALLOW) answering from ``catalog``.

    Its result's ``data`` is ``{"skill", "tools", "unavailable"}``: ``unavailable`` maps each
    of the skill's tools that cannot run now (its remote MCP server is down, or not connected
    yet) to why, in the person's words, so neither the card nor the model is told a tool is
    there when it is not.

    Args:
        catalog: The skills; read at call time, so it may be filled after the tool is built.
        registry: The tools, to say which of the skill's tools cannot run now (None: all can).

    Returns:
        A :class:`Tool` with ``skill`` None (a core tool).
    """

    def load_skill(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Add the skill to the conversation's loaded skills; return its instructions.

        Raises:
            ToolError: ``not_found`` when no skill of that name is loaded in the catalog, or
                the conversation does not exist.
        """
        name = str(args["name"]).strip()
        skill = catalog.get(name)
        if skill is None or skill.status != "loaded":
            raise ToolError(
                "not_found",
                f"There is no skill named {name!r}.",
                hint="Load one of the skills listed under 'Skills you can load'.",
            )
        with ctx.db.session() as session:
            conversation = session.get(Conversation, ctx.conversation_id)
            if conversation is None:
                raise ToolError("not_found", "The conversation no longer exists.")
            loaded = list(conversation.loaded_skills or [])
            if name not in loaded:
                # A new list, so the JSON column is seen as changed.
                conversation.loaded_skills = [*loaded, name]
                session.add(conversation)
                session.commit()
        unavailable = _unavailable(registry, skill.tools) if registry is not None else {}
        tools = [t for t in skill.tools if t not in unavailable]
        text = (
            f"Skill {name} loaded. Instructions:\n{skill.instructions}\n"
            f"Tools: {', '.join(tools) if tools else 'none'}"
        )
        if unavailable:
            text += "\nNot available right now: " + "; ".join(
                f"{tool} ({why})" for tool, why in unavailable.items()
            )
        return ToolResult(
            text=text, data={"skill": name, "tools": tools, "unavailable": unavailable}
        )

    return Tool(
        name=LOAD_SKILL,
        title="Load a skill",
        description=(
            "Load one of the skills listed under 'Skills you can load' in this conversation: "
            "you get its instructions, and its tools become available from your next step."
        ),
        input_schema=LOAD_SKILL_SCHEMA,
        handler=load_skill,
        permission=Permission.ALLOW,
        write=True,
        annotations=ToolAnnotations(destructive=False, idempotent=True),  # it only adds
        skill=None,
    )


def _unavailable(registry: ToolRegistry, names: tuple[str, ...] | list[str]) -> dict[str, str]:
    """Each of ``names`` that cannot run now, with why (a remote server's tool not registered
    yet, or registered but its server down)."""
    out: dict[str, str] = {}
    for name in names:
        tool = registry.get(name)
        if tool is None:
            out[name] = "Its server is not connected yet."
        elif (why := tool.unavailable_reason()) is not None:
            out[name] = why
    return out
