"""Shared fixtures for the tool registry tests: a registry, a context and a tool factory."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from interlock.storage import Database
from interlock.tools import Tool, ToolContext, ToolRegistry

ToolFactory = Callable[..., Tool]


def _echo(args: dict[str, Any], ctx: ToolContext) -> str:
    return f"echo {args}"


@pytest.fixture
def make_tool() -> ToolFactory:
    """Return ``make_tool(**overrides) -> Tool``: a valid tool named ``demo.echo`` by default."""

    def make(**overrides: Any) -> Tool:
        fields: dict[str, Any] = {
            "name": "demo.echo",
            "title": "Echo",
            "description": "Echo the arguments.",
            "input_schema": {
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "additionalProperties": False,
            },
            "handler": _echo,
        }
        fields.update(overrides)
        return Tool(**fields)

    return make


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry()


@pytest.fixture
def ctx() -> Iterator[ToolContext]:
    db = Database("sqlite://")
    yield ToolContext(user_id="user_1", conversation_id="conv_1", tool_call_id="call_1", db=db)
    db.dispose()
