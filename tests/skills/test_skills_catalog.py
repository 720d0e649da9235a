"""The skill catalog: lookups, the API shape, and the core ``load_skill`` tool."""

from __future__ import annotations

import pytest

from interlock.skills import SkillCatalog, load_catalog, skill_out
from interlock.storage import Conversation
from interlock.tools import Permission, ToolContext, ToolError, ToolRegistry

from .conftest import BUILTIN_SKILLS

ECHO_MD = """
---
name: echo
description: Echo things.
version: 0.1.0
tags: [demo]
commands:
  - command: say
    title: Say it
    description: Say the line
    tool: echo.say
    args: {text: "{query}"}
  - command: notes
    title: Clash with notes
    tool: echo.say
    args: {text: "{query}"}
---
Echo what the person says.
"""

ECHO_TOOLS = """
from interlock.tools import tool

@tool(
    name="echo.say",
    title="Say",
    description="Say it.",
    input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
)
def say(args, ctx):
    return args.get("text", "")
"""


@pytest.fixture
def catalog(tmp_path, write_skill, offline_settings) -> tuple[ToolRegistry, SkillCatalog]:
    write_skill("echo", ECHO_MD, tools=ECHO_TOOLS)
    write_skill("broken", "---\nname: broken\n---\n")
    registry = ToolRegistry()
    return registry, load_catalog(registry, [BUILTIN_SKILLS, tmp_path], offline_settings)


def test_the_catalog_lists_loaded_and_failed_skills(catalog):
    _, skills = catalog

    assert list(skills.skills) == [
        "ask",
        "browser",
        "documents",
        "notes",
        "suggestions",
        "broken",
        "echo",
    ]
    assert [s.name for s in skills.loaded()] == [
        "ask",
        "browser",
        "documents",
        "notes",
        "suggestions",
        "echo",
    ]
    broken = skills.get("broken")
    assert broken is not None
    assert (broken.status, broken.error) == (
        "failed",
        "SKILL.md:1: missing required key 'description'",
    )
    assert skills.get("nope") is None
    assert [s.name for s in skills.all] == list(skills.skills)


def test_tools_know_their_skill(catalog):
    registry, skills = catalog

    assert skills.skill_of_tool("notes.add") == "notes"
    assert skills.skill_of_tool("suggestions") == "suggestions"
    assert skills.skill_of_tool("echo.say") == "echo"
    assert skills.skill_of_tool("load_skill") is None
    assert skills.skill_of_tool("nope") is None
    assert registry.get("echo.say").skill == "echo"
    assert registry.get("load_skill").skill is None


def test_commands_are_found_by_name_across_skills(catalog):
    _, skills = catalog

    found = skills.commands_named("notes")
    assert [(s.name, c.tool) for s, c in found] == [("notes", "notes.add"), ("echo", "echo.say")]
    assert [(s.name, c.command) for s, c in skills.commands_named("say")] == [("echo", "say")]
    assert skills.commands_named("nope") == []
    assert [c.command for _, c in skills.commands()] == ["notes", "say", "notes"]


def test_skill_out_is_the_api_shape(catalog, tmp_path):
    _, skills = catalog

    assert skill_out(skills.skills["echo"]) == {
        "name": "echo",
        "description": "Echo things.",
        "version": "0.1.0",
        "tags": ["demo"],
        "status": "loaded",
        "error": None,
        "tools": ["echo.say"],
        "commands": [
            {
                "command": "say",
                "title": "Say it",
                "description": "Say the line",
                "tool": "echo.say",
            },
            {
                "command": "notes",
                "title": "Clash with notes",
                "description": "",
                "tool": "echo.say",
            },
        ],
        "path": str(tmp_path / "echo"),
    }
    failed = skill_out(skills.skills["broken"])
    assert (failed["status"], failed["tools"], failed["commands"]) == ("failed", [], [])


def test_a_loaded_skill_wins_over_a_failed_folder_of_the_same_name(tmp_path, offline_settings):
    from .conftest import write_skill_folder

    write_skill_folder(tmp_path / "one", "dup", "---\nname: dup\nbad: 1\ndescription: x\n---\n")
    write_skill_folder(tmp_path / "two", "dup", "---\nname: dup\ndescription: Fine.\n---\n")

    skills = load_catalog(ToolRegistry(), [tmp_path / "one", tmp_path / "two"], offline_settings)

    assert skills.skills["dup"].status == "loaded"
    assert [s.status for s in skills.all] == ["failed", "loaded"]


def test_load_skill_is_a_core_allow_tool(catalog):
    registry, _ = catalog
    tool = registry.get("load_skill")

    assert (tool.permission, tool.skill, tool.provider_name) == (
        Permission.ALLOW,
        None,
        "load_skill",
    )
    assert registry.validate_args(tool, {"name": "notes"}) == []
    assert [e.rule for e in registry.validate_args(tool, {})] == ["required"]


def test_load_catalog_refuses_a_registry_that_already_has_a_catalog(offline_settings):
    from interlock.tools import ToolRegistrationError

    registry = ToolRegistry()
    load_catalog(registry, [], offline_settings)
    with pytest.raises(ToolRegistrationError, match="duplicate name"):
        load_catalog(registry, [], offline_settings)


@pytest.fixture
def conversation_id(database) -> str:
    conversation = Conversation(owner_id="u1", employee="assistant")
    with database.session() as session:
        session.add(conversation)
        session.commit()
        session.refresh(conversation)
        return conversation.id


def _loaded_skills(database, conversation_id: str) -> list[str]:
    with database.session() as session:
        conversation = session.get(Conversation, conversation_id)
        assert conversation is not None
        return list(conversation.loaded_skills)


async def test_load_skill_records_the_skill_on_the_conversation(catalog, database, conversation_id):
    registry, _ = catalog
    tool = registry.get("load_skill")
    ctx = ToolContext(user_id="u1", conversation_id=conversation_id, tool_call_id="c1", db=database)

    result = await registry.execute(tool, {"name": "echo"}, ctx)

    assert result.text == (
        "Skill echo loaded. Instructions:\nEcho what the person says.\nTools: echo.say"
    )
    assert result.data == {"skill": "echo", "tools": ["echo.say"], "unavailable": {}}
    assert _loaded_skills(database, conversation_id) == ["echo"]

    await registry.execute(tool, {"name": "notes"}, ctx)
    again = await registry.execute(tool, {"name": "echo"}, ctx)

    assert again.data == {"skill": "echo", "tools": ["echo.say"], "unavailable": {}}
    assert _loaded_skills(database, conversation_id) == ["echo", "notes"]


async def test_load_skill_says_which_tools_cannot_run_now_and_why(
    catalog, database, conversation_id, monkeypatch
):
    """Found in a tryout: with the docs MCP server down, the card said "Now available: Search
    the docs." and the next reply said it was still not available."""
    registry, _ = catalog
    down = "The MCP server 'docs' is not available: nothing answers at its address."
    monkeypatch.setattr(registry.get("echo.say"), "availability", lambda: down)
    ctx = ToolContext(user_id="u1", conversation_id=conversation_id, tool_call_id="c1", db=database)

    result = await registry.execute(registry.get("load_skill"), {"name": "echo"}, ctx)

    assert result.data == {"skill": "echo", "tools": [], "unavailable": {"echo.say": down}}
    assert result.text.endswith(f"Tools: none\nNot available right now: echo.say ({down})")


def test_load_skill_field_help_is_written_for_the_person(catalog):
    """The card's Details showed "The skill's name, as listed under 'Skills you can load'.",
    a system-prompt section the person never sees."""
    registry, _ = catalog
    tool = registry.get("load_skill")
    help_text = tool.input_schema["properties"]["name"]["description"]
    assert "Skills you can load" not in help_text
    assert "Skills you can load" in tool.description  # the model still learns where to look


@pytest.mark.parametrize("name", ["broken", "nope"])
async def test_load_skill_refuses_unknown_and_failed_skills(
    catalog, database, conversation_id, name
):
    registry, _ = catalog
    tool = registry.get("load_skill")
    ctx = ToolContext(user_id="u1", conversation_id=conversation_id, tool_call_id="c1", db=database)

    with pytest.raises(ToolError) as caught:
        await registry.execute(tool, {"name": name}, ctx)

    assert caught.value.code == "not_found"
    assert _loaded_skills(database, conversation_id) == []


def test_built_in_id_arguments_carry_a_title_for_people(builtin_registry):
    """A card or form labels an untitled key by the key ("ID"): an id names what it is."""
    untitled = []

    def walk(tool: str, schema: object, path: str) -> None:
        if not isinstance(schema, dict):
            return
        for key, prop in (schema.get("properties") or {}).items():
            if not isinstance(prop, dict):
                continue
            if (key == "id" or key.endswith(("_id", "Id"))) and not prop.get("title"):
                untitled.append(f"{tool}: {path}{key}")
            walk(tool, prop, f"{path}{key}.")
            walk(tool, prop.get("items"), f"{path}{key}[].")

    for tool in builtin_registry.tools():
        walk(tool.name, tool.input_schema, "")
    assert untitled == []
