"""Approval rules on tools are checked at load: 1 to 5 approvals, a sane timeout."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from interlock.adapters.declarative import DeclarativeToolError, build_declarative_tool
from interlock.tools import ToolRegistrationError, ToolRegistry
from support.https_server import make_settings

TEXT: dict[str, Any] = {
    "name": "greet.hello",
    "kind": "text_template",
    "title": "Say hello",
    "description": "Greets someone.",
    "input_schema": {"type": "object", "properties": {"name": {"type": "string"}}},
    "template": "Hello {arguments.name}!",
}


@pytest.mark.parametrize(
    ("value", "words"),
    [(0, "at least 1 person"), (6, "at most 5"), (True, "whole number"), (2.5, "whole number")],
)
def test_registration_refuses_approvals_required_out_of_range(
    make_tool: Any, registry: ToolRegistry, value: Any, words: str
) -> None:
    with pytest.raises(ToolRegistrationError) as caught:
        registry.register(make_tool(approvals_required=value))
    assert "approvals_required" in str(caught.value) and words in str(caught.value)
    assert registry.tools() == []


@pytest.mark.parametrize("value", [0, -1, float("inf"), 31 * 24 * 3600])
def test_registration_refuses_a_bad_approval_timeout(
    make_tool: Any, registry: ToolRegistry, value: float
) -> None:
    with pytest.raises(ToolRegistrationError) as caught:
        registry.register(make_tool(approval_timeout_s=value))
    assert "approval_timeout_s" in str(caught.value)


def test_registration_keeps_a_valid_rule(make_tool: Any, registry: ToolRegistry) -> None:
    registry.register(make_tool(approvals_required=5, approval_timeout_s=50, require_approver=True))
    tool = registry.get("demo.echo")
    assert tool is not None
    assert (tool.approvals_required, tool.approval_timeout_s, tool.require_approver) == (
        5,
        50,
        True,
    )


@pytest.mark.parametrize(
    ("key", "value", "words"),
    [
        ("approvals_required", 0, "at least 1 person"),
        ("approvals_required", 6, "at most 5"),
        ("approval_timeout_s", 0, "above 0"),
        ("require_approver", "yes", "true or false"),
    ],
)
def test_a_declarative_tool_with_a_bad_rule_is_refused_with_its_path(
    key: str, value: Any, words: str
) -> None:
    spec = copy.deepcopy(TEXT) | {key: value}
    with pytest.raises(DeclarativeToolError) as caught:
        build_declarative_tool(spec, skill="greet", settings=make_settings())
    assert caught.value.path == [key]
    assert words in str(caught.value)


def test_a_declarative_tool_carries_its_rule() -> None:
    spec = TEXT | {"approvals_required": 2, "require_approver": True, "approval_timeout_s": 50}
    tool = build_declarative_tool(spec, skill="greet", settings=make_settings())
    assert (tool.approvals_required, tool.require_approver, tool.approval_timeout_s) == (
        2,
        True,
        50,
    )
