"""ToolRegistry: registration rules (names and fields), provider-safe names, lookup and provider
specs. The schema rules at registration: ``test_tools_registry_schemas``."""

from __future__ import annotations

import hashlib
import re

import pytest

from interlock.storage.models import ToolCall
from interlock.tools import (
    Permission,
    ToolRegistrationError,
    ToolRegistry,
    provider_safe_name,
)
from interlock.tools.registry import MAX_TOOL_NAME_CHARS
from interlock.tools.schema import DRAFT_2020_12
from support.registration import registration_reason

PROVIDER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


# -- names -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["notes.add", "a", "web-search.fetch_page", "x.y.z", "tool_2", "0.1"]
)
def test_register_accepts_lowercase_dotted_names(registry, make_tool, name):
    tool = registry.register(make_tool(name=name))

    assert registry.get(name) is tool


@pytest.mark.parametrize(
    "name",
    [
        "",
        "Notes.add",
        "notes add",
        "notes..add",
        ".notes",
        "notes.",
        "notes/add",
        "nötes",
        "notes.add\n",
        "notes:add",
    ],
)
def test_register_refuses_names_outside_the_name_rule(registry, make_tool, name):
    reason = registration_reason(registry, make_tool(name=name))

    assert "lowercase letters, digits" in reason
    assert "non-empty segments" in reason


def test_register_refuses_a_name_longer_than_the_tool_calls_name_column(registry, make_tool):
    reason = registration_reason(registry, make_tool(name="a" * (MAX_TOOL_NAME_CHARS + 1)))

    assert reason == f"name is {MAX_TOOL_NAME_CHARS + 1} characters long, more than 200"
    assert ToolCall.__table__.c.name.type.length == MAX_TOOL_NAME_CHARS


def test_register_refuses_a_name_that_is_not_a_string(registry, make_tool):
    with pytest.raises(ToolRegistrationError, match="name must be a string"):
        registry.register(make_tool(name=42))


def test_register_refuses_a_duplicate_name(registry, make_tool):
    registry.register(make_tool(name="notes.add"))

    reason = registration_reason(registry, make_tool(name="notes.add"))

    assert reason.startswith("duplicate name")


def test_register_refuses_names_that_collide_after_provider_mapping(registry, make_tool):
    registry.register(make_tool(name="notes.add"))

    reason = registration_reason(registry, make_tool(name="notes_add"))

    assert "provider name 'notes_add' collides with tool 'notes.add'" in reason
    assert registry.get("notes_add") is None


def test_registration_error_names_the_tool_and_is_a_value_error(registry, make_tool):
    with pytest.raises(ValueError) as caught:
        registry.register(make_tool(name="Bad"))

    error = caught.value
    assert isinstance(error, ToolRegistrationError)
    assert error.tool_name == "Bad"
    assert str(error).startswith("Cannot register tool 'Bad': name must be")


def test_register_refuses_something_that_is_not_a_tool(registry):
    assert registration_reason(registry, {"name": "x"}) == "expected a Tool object, got dict"


# -- provider-safe names -----------------------------------------------------------------------


def test_provider_safe_name_maps_dots_and_dashes_to_underscores():
    assert provider_safe_name("notes.add") == "notes_add"
    assert provider_safe_name("web-search.fetch_page") == "web_search_fetch_page"
    assert provider_safe_name("a-b") == "a_b"


def test_register_refuses_names_that_collide_once_dashes_are_mapped(registry, make_tool):
    registry.register(make_tool(name="web-search.fetch"))

    reason = registration_reason(registry, make_tool(name="web_search.fetch"))

    assert "provider name 'web_search_fetch' collides with tool 'web-search.fetch'" in reason
    assert "rename one" in reason
    assert registry.get("web_search.fetch") is None
    assert registry.by_provider_name("web_search_fetch").name == "web-search.fetch"


def test_register_refuses_a_dash_collision_within_one_batch(registry, make_tool):
    with pytest.raises(ToolRegistrationError, match=r"collides with tool 'notes-x\.add'"):
        registry.register_many([make_tool(name="notes-x.add"), make_tool(name="notes_x.add")])

    assert registry.get("notes-x.add") is None


def test_provider_safe_name_keeps_a_64_character_name_unchanged():
    assert provider_safe_name("a" * 64) == "a" * 64


def test_provider_safe_name_shortens_an_80_character_name_with_a_stable_hash():
    name = "skill." + "x" * 74
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]

    safe = provider_safe_name(name)

    assert len(name) == 80
    assert len(safe) == 64
    assert safe == "skill_" + "x" * 49 + "_" + digest
    assert PROVIDER_NAME.match(safe)
    assert provider_safe_name(name) == safe


def test_provider_safe_name_keeps_long_names_with_a_shared_prefix_apart(registry, make_tool):
    first = make_tool(name="p" * 70 + ".one")
    second = make_tool(name="p" * 70 + ".two")

    registry.register(first)
    registry.register(second)

    assert first.provider_name != second.provider_name
    assert first.provider_name[:55] == second.provider_name[:55]


@pytest.mark.parametrize(
    "name", ["", "é", "a b", "日本語" * 40, "x" * 500, "a.b-c_d", "\x00", "-" * 70, "a/b-c"]
)
def test_provider_safe_name_always_matches_the_provider_rule(name):
    safe = provider_safe_name(name)
    assert PROVIDER_NAME.match(safe)
    assert "-" not in safe and len(safe) <= 64


def test_register_sets_the_provider_name_and_finds_the_tool_by_it(registry, make_tool):
    tool = registry.register(make_tool(name="notes.add"))

    assert tool.provider_name == "notes_add"
    assert registry.by_provider_name("notes_add") is tool
    assert registry.by_provider_name("notes.add") is None


# -- other fields ------------------------------------------------------------------------------


@pytest.mark.parametrize("timeout_s", [0, -1, 0.0, float("nan"), float("inf"), True, "5"])
def test_register_refuses_a_timeout_that_is_not_a_positive_number(registry, make_tool, timeout_s):
    reason = registration_reason(registry, make_tool(timeout_s=timeout_s))

    assert reason.startswith("timeout_s must be a positive number of seconds")


def test_register_refuses_an_invalid_permission(registry, make_tool):
    reason = registration_reason(registry, make_tool(permission="MAYBE"))

    assert reason == "permission 'MAYBE' is not one of ALLOW, ASK, DENY"


def test_register_turns_a_permission_string_into_the_enum(registry, make_tool):
    tool = registry.register(make_tool(permission="ALLOW"))

    assert tool.permission is Permission.ALLOW


def test_register_refuses_a_handler_that_is_not_callable(registry, make_tool):
    reason = registration_reason(registry, make_tool(handler="not callable"))

    assert reason.startswith("handler must be callable")


def test_register_refuses_a_title_that_is_not_a_string(registry, make_tool):
    assert registration_reason(registry, make_tool(title=None)) == "title must be a string"


def test_register_many_adds_all_or_none(registry, make_tool):
    good = make_tool(name="skill.good")
    bad = make_tool(name="skill.Bad")

    with pytest.raises(ToolRegistrationError):
        registry.register_many([good, bad])

    assert registry.tools() == []
    assert good.provider_name == ""


def test_register_many_checks_the_tools_against_each_other(registry, make_tool):
    with pytest.raises(ToolRegistrationError, match=r"collides with tool 'a\.b'"):
        registry.register_many([make_tool(name="a.b"), make_tool(name="a_b")])


# -- lookup and specs --------------------------------------------------------------------------


def test_tools_are_listed_sorted_by_name(registry, make_tool):
    for name in ["notes.list", "alpha", "notes.add"]:
        registry.register(make_tool(name=name))

    assert [t.name for t in registry.tools()] == ["alpha", "notes.add", "notes.list"]
    assert len(registry) == 3
    assert "alpha" in registry
    assert registry.get("missing") is None


def test_provider_specs_use_the_openai_function_format(registry, make_tool):
    schema = {
        "$schema": DRAFT_2020_12,
        "$id": "https://example.com/add",
        "type": "object",
        "properties": {"text": {"type": "string"}},
    }
    tool = registry.register(make_tool(name="notes.add", input_schema=schema))

    specs = registry.provider_specs([tool])

    assert specs == [
        {
            "type": "function",
            "function": {
                "name": "notes_add",
                "description": "Echo the arguments.",
                "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
            },
        }
    ]
    specs[0]["function"]["parameters"]["properties"]["text"]["type"] = "integer"
    assert tool.input_schema["properties"]["text"]["type"] == "string"


def test_provider_specs_refuse_a_tool_that_is_not_registered(registry, make_tool):
    with pytest.raises(ValueError, match=r"'demo\.echo' is not registered"):
        registry.provider_specs([make_tool()])


# -- construction ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_result_chars": 0},
        {"max_result_chars": 1.5},
        {"default_timeout_s": 0},
        {"default_timeout_s": float("nan")},
    ],
)
def test_registry_refuses_limits_that_are_not_positive(kwargs):
    with pytest.raises(ValueError):
        ToolRegistry(**kwargs)


def test_replace_group_swaps_one_group_and_reports_refused_tools(make_tool) -> None:
    registry = ToolRegistry()
    registry.register(make_tool(name="notes.add"))
    registry.replace_group("mcp.a.", [make_tool(name="mcp.a.one"), make_tool(name="mcp.a.two")])
    registry.replace_group("mcp.b.", [make_tool(name="mcp.b.one")])
    assert [t.name for t in registry.tools()] == [
        "mcp.a.one",
        "mcp.a.two",
        "mcp.b.one",
        "notes.add",
    ]
    refused = registry.replace_group(
        "mcp.a.",
        [
            make_tool(name="mcp.a.three"),
            make_tool(name="mcp.a.Bad"),
            make_tool(name="elsewhere.x"),
        ],
    )
    assert set(refused) == {"mcp.a.Bad", "elsewhere.x"}
    assert [t.name for t in registry.tools()] == ["mcp.a.three", "mcp.b.one", "notes.add"]
    assert registry.by_provider_name("mcp_a_one") is None
    three = registry.get("mcp.a.three")
    assert three is not None and registry.by_provider_name("mcp_a_three") is three
    assert registry.validate_args(three, {"text": 5})  # its validator came with it
    registry.replace_group("mcp.a.", [])
    assert [t.name for t in registry.tools()] == ["mcp.b.one", "notes.add"]
