"""Skill folders' files for the loader tests: a good skill, a two-tool skill, SKILL.md text,
and reading what the loader made of them."""

from __future__ import annotations

from pathlib import Path

from interlock.settings import Settings
from interlock.skills import Skill, load_skills
from interlock.tools import ToolRegistry

GOOD_MD = """
---
name: good
description: Answers pings.
version: "2.1"
tags: [demo, test]
---
# Good

Ping when asked.
"""

GOOD_TOOLS = """
from interlock.tools import Permission, tool

@tool(name="good.ping", title="Ping", description="Ping.", permission=Permission.ALLOW)
def ping(args, ctx):
    return "pong"

alias = ping  # the same tool bound twice is registered once
"""

ECHO_TOOLS = """
from interlock.tools import tool

@tool(
    name="echo.say",
    title="Say",
    description="Say it.",
    input_schema={
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    },
)
def say(args, ctx):
    return args["text"]

@tool(name="echo.shout", title="Shout", description="Shout.")
def shout(args, ctx):
    return "!"
"""


def md(name: str, description: str = "A skill.", extra: str = "") -> str:
    """A SKILL.md with front matter ``name``, ``description`` and extra YAML lines."""
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\nInstructions.\n"


def load(registry: ToolRegistry, base: Path, settings: Settings) -> list[Skill]:
    """Load the skills of the folders under ``base`` into ``registry``."""
    return load_skills(registry, [base], settings)


def only(skill: Skill) -> tuple[int, str]:
    """The one problem of a failed skill as ``(line, reason)``."""
    assert skill.status == "failed", skill
    assert len(skill.problems) == 1, skill.problems
    return skill.problems[0].line, skill.problems[0].reason
