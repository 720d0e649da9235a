"""Fixtures for the MCP tests: the built-in skills' tools and synthetic tools (listing), and a
real remote MCP server with Interlock's side of it (sources, see :mod:`support.mcp_fixtures`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from interlock.settings import REPO_ROOT, Settings
from interlock.skills import load_catalog
from interlock.tools import Tool, ToolAnnotations, ToolContext, ToolRegistry
from support.mcp_fixtures import ctx, make_sources, remote
from support.skill_modules import forget_skill_modules

__all__ = ["ctx", "forget_skill_modules", "make_sources", "remote"]

MakeTool = Callable[..., Tool]


@pytest.fixture
def builtin(tmp_path: Path) -> ToolRegistry:
    """A registry holding the built-in skills' tools (notes, documents, browser, ask...)."""
    settings = Settings(_env_file=None, database_url=f"sqlite:///{tmp_path / 'unused.db'}")
    registry = ToolRegistry()
    load_catalog(registry, [REPO_ROOT / "skills"], settings)
    return registry


def _handler(args: dict[str, Any], ctx: ToolContext) -> str:
    return "done"


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry()


@pytest.fixture
def make_tool(registry: ToolRegistry) -> MakeTool:
    """``make_tool(name, properties=..., required=..., **fields)``: a tool registered in
    ``registry`` (closed object schema; title from the name)."""

    def make(
        name: str,
        properties: dict[str, Any] | None = None,
        required: list[str] | None = None,
        **fields: Any,
    ) -> Tool:
        schema: dict[str, Any] = {
            "type": "object",
            "properties": properties or {},
            "additionalProperties": False,
        }
        if required:
            schema["required"] = required
        fields.setdefault("title", name.replace(".", " ").capitalize())
        fields.setdefault("description", f"Does {name}.")
        fields.setdefault("input_schema", schema)
        fields.setdefault("annotations", ToolAnnotations())
        return registry.register(Tool(name=name, handler=_handler, **fields))

    return make
