"""Tool tags (registration rules) and behaviour hints (declared annotations, defaults)."""

from __future__ import annotations

import pytest

from interlock.tools import Tool, ToolAnnotations, ToolRegistrationError, tool
from interlock.tools.base import ToolHints


def reason(registry, candidate: Tool) -> str:
    with pytest.raises(ToolRegistrationError) as caught:
        registry.register(candidate)
    return caught.value.reason


def test_registration_keeps_tags_sorted_without_repeats(registry, make_tool):
    registered = registry.register(make_tool(tags=["b", "a", "b"]))

    assert registered.tags == ("a", "b")


@pytest.mark.parametrize("tags", [["Upper"], ["with space"], [""], ["x" * 41], ["-lead"], [3]])
def test_registration_refuses_a_tag_outside_the_tag_rule(registry, make_tool, tags):
    assert "must be 1 to 40 lowercase letters" in reason(registry, make_tool(tags=tags))


def test_registration_refuses_tags_given_as_one_string(registry, make_tool):
    assert reason(registry, make_tool(tags="notes")) == "tags must be a list of strings, got str"


def test_the_decorator_takes_tags_and_refuses_a_single_string():
    @tool(name="demo.tagged", title="Tagged", description="Tagged.", tags=["demo"])
    def tagged(args, ctx):
        return "x"

    assert tagged.tags == ("demo",)
    with pytest.raises(ToolRegistrationError, match="tags must be a list of strings"):
        tool(name="demo.bad", title="Bad", description="Bad.", tags="demo")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("write", "declared", "hints"),
    [
        (False, ToolAnnotations(), ToolHints(True, False, True, False)),
        (True, ToolAnnotations(), ToolHints(False, True, False, False)),
        (True, ToolAnnotations(destructive=False), ToolHints(False, False, False, False)),
        (
            True,
            ToolAnnotations(idempotent=True, open_world=True),
            ToolHints(False, True, True, True),
        ),
        (False, ToolAnnotations(read_only=False), ToolHints(False, True, False, False)),
        (False, ToolAnnotations(idempotent=False), ToolHints(True, False, False, False)),
    ],
)
def test_hints_apply_defaults_from_write_to_what_is_not_declared(make_tool, write, declared, hints):
    assert make_tool(write=write, annotations=declared).hints() == hints


def test_registration_refuses_a_write_tool_declared_read_only(registry, make_tool):
    candidate = make_tool(write=True, annotations=ToolAnnotations(read_only=True))

    assert reason(registry, candidate) == "a tool with write=True is not read_only"


def test_registration_refuses_a_read_only_tool_declared_destructive(registry, make_tool):
    candidate = make_tool(annotations=ToolAnnotations(read_only=True, destructive=True))

    assert reason(registry, candidate) == "a read_only tool is not destructive"


def test_registration_refuses_a_hint_that_is_not_a_boolean(registry, make_tool):
    candidate = make_tool(annotations=ToolAnnotations(idempotent="yes"))  # type: ignore[arg-type]

    assert reason(registry, candidate).startswith("annotations.idempotent must be true, false")
