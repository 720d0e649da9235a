"""A slash command whose input breaks its tool's schema is refused with sentences a person can
act on: about the text they typed after the command, or, for a field the skill fills itself,
as the skill's mistake (never a field name and a rule)."""

from __future__ import annotations

from typing import Any

from interlock.engine.commands import _problems_in_words
from interlock.tools import Tool, ToolRegistry, ToolResult

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1, "maxLength": 5},
        "color": {"type": "string", "enum": ["red", "blue"]},
        "email": {"type": "string", "format": "email"},
        "limit": {"type": "integer", "minimum": 1, "title": "Result limit"},
    },
    "required": ["query"],
}


def _words(template: dict[str, Any] | None, args: dict[str, Any]) -> str:
    tool = Tool(
        name="demo.find",
        title="Find",
        description="Find things.",
        input_schema=SCHEMA,
        handler=lambda _args, _ctx: ToolResult(content="found"),
    )
    registry = ToolRegistry()
    registry.register(tool)
    errors = registry.validate_args(tool, args)
    assert errors
    return _problems_in_words("find", tool, template, errors)


def test_empty_or_missing_text_reads_as_needing_some_text() -> None:
    assert _words(None, {"query": ""}) == "/find needs some text."
    assert _words({"color": "red"}, {"color": "red"}) == (
        "/find cannot run: its skill gives the tool input it refuses (Query): is required. "
        "Tell an admin."
    )


def test_each_rule_on_the_typed_text_reads_as_a_sentence_about_it() -> None:
    assert _words(None, {"query": "toolong"}) == (
        "The text after /find must have at most 5 characters."
    )
    template = {"query": "x", "color": "{query}", "email": "{query}"}
    assert _words(template, {"query": "x", "color": "green", "email": "green"}) == (
        'The text after /find must be one of: "red", "blue". '
        "The text after /find must be a valid email address."
    )


def test_a_field_the_skill_fills_wrongly_is_named_as_the_skills_mistake() -> None:
    assert _words({"query": "{query}", "limit": 0}, {"query": "x", "limit": 0}) == (
        "/find cannot run: its skill gives the tool input it refuses (Result limit): must be "
        "at least 1. Tell an admin."
    )
