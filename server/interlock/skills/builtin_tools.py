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

LOAD_SKILL = "load_skill"

LOAD_SKILL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "title": "Skill",
            "minLength": 1,
            "maxLength": 100,
            "description": "The skill's name, as listed under 'Skills you can load'.",
        }
    },
    "required": ["name"],
    "additionalProperties": False,
}


def load_skill_tool(catalog: SkillCatalog) -> Tool:
    """Build the ``load_skill`` tool (ALLOW) answering from ``catalog``.

    Args:
        catalog: The skills; read at call time, so it may be filled after the tool is built.

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
        tools = list(skill.tools)
        return ToolResult(
            text=(
                f"Skill {name} loaded. Instructions:\n{skill.instructions}\n"
                f"Tools: {', '.join(tools) if tools else 'none'}"
            ),
            data={"skill": name, "tools": tools},
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
