"""Titles a skill's author sets for people (a declarative tool's title, a slash command's) are
held to the rule of user names: one line of visible characters, single spaces between words.
Before, a bidi override or a zero-width space in them was accepted and shown."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from interlock.adapters.declarative import DeclarativeToolError, build_declarative_tool
from interlock.skills.manifest import SlashCommand
from support.https_server import make_settings

TEXT: dict[str, Any] = {
    "name": "greet.hello",
    "kind": "text_template",
    "title": "Say hello",
    "description": "Greets someone.",
    "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}},
    "template": "Hello {arguments.name}!",
}
RULE = (
    "{} is one line of visible characters, single spaces between words: no line breaks, "
    "tabs, control or invisible characters."
)
HIDDEN = ["Say \u202eolleh", "Say\u200b hello", "Say\thello", "Say  hello"]


@pytest.mark.parametrize("title", HIDDEN)
def test_a_declarative_tool_title_with_hidden_characters_is_refused(title: str) -> None:
    spec = copy.deepcopy(TEXT) | {"title": title}
    with pytest.raises(DeclarativeToolError) as caught:
        build_declarative_tool(spec, skill="greet", settings=make_settings())
    assert caught.value.path == ["title"]
    assert RULE.format("A tool's title") in str(caught.value)


@pytest.mark.parametrize("title", HIDDEN)
def test_a_slash_command_title_with_hidden_characters_is_refused(title: str) -> None:
    with pytest.raises(ValidationError) as caught:
        SlashCommand(command="hello", title=title, tool="greet.hello")
    assert RULE.format("A slash command's title") in str(caught.value)


def test_plain_titles_are_kept() -> None:
    tool = build_declarative_tool(copy.deepcopy(TEXT), skill="greet", settings=make_settings())
    assert tool.title == "Say hello"
    assert SlashCommand(command="hello", title="Say hello", tool="greet.hello").title == (
        "Say hello"
    )
