"""Mapping an MCP call back to an Interlock tool and arguments, with clear errors."""

from __future__ import annotations

import pytest

from interlock.errors import BadRequest
from interlock.mcp_bridge.exposition import Exposition
from interlock.mcp_bridge.options import ListingOptions
from interlock.tools import ToolRegistry

GROUPED = ListingOptions(exposition="grouped")


def refusal(exposition: Exposition, name: str, arguments) -> BadRequest:
    with pytest.raises(BadRequest) as caught:
        exposition.resolve(name, arguments)
    return caught.value


def test_a_grouped_call_maps_to_the_actions_tool_without_the_action_field(builtin: ToolRegistry):
    exposition = Exposition(builtin.tools(), GROUPED)
    arguments = {"action": "delete", "id": 2}

    call = exposition.resolve("notes", arguments)

    assert call.tool is builtin.get("notes.delete")
    assert call.arguments == {"id": 2}
    assert (call.mcp_name, call.action) == ("notes", "delete")
    assert arguments == {"action": "delete", "id": 2}  # the caller's dict is left alone


def test_the_mapped_arguments_are_checked_by_the_actions_own_schema(builtin: ToolRegistry):
    exposition = Exposition(builtin.tools(), GROUPED)

    # "text" is in the merged schema (for add) but delete neither requires nor allows it.
    call = exposition.resolve("notes", {"action": "delete", "text": "milk"})
    errors = builtin.validate_args(call.tool, call.arguments)

    assert {(tuple(e.path), e.rule) for e in errors} == {
        (("id",), "required"),
        (("text",), "additionalProperties"),
    }


def test_an_action_with_no_fields_maps_to_empty_arguments(builtin: ToolRegistry):
    call = Exposition(builtin.tools(), GROUPED).resolve("notes", {"action": "list"})

    assert (call.tool.name, call.arguments) == ("notes.list", {})
    assert builtin.validate_args(call.tool, call.arguments) == []


def test_missing_arguments_count_as_an_empty_object(builtin: ToolRegistry):
    call = Exposition(builtin.tools()).resolve("notes_list", None)

    assert call.arguments == {}


def test_an_unknown_tool_is_refused_with_its_name(builtin: ToolRegistry):
    error = refusal(Exposition(builtin.tools()), "notes.add", {})

    assert error.code == "unknown_tool"
    assert error.details == {"tool": "notes.add"}
    assert "There is no tool 'notes.add' on this connection" in error.message


def test_a_flat_name_is_unknown_in_a_grouped_listing_and_the_reverse(builtin: ToolRegistry):
    assert refusal(Exposition(builtin.tools(), GROUPED), "notes_add", {}).code == "unknown_tool"
    assert refusal(Exposition(builtin.tools()), "notes", {"action": "add"}).code == "unknown_tool"


def test_a_grouped_call_without_an_action_is_refused_listing_the_actions(builtin: ToolRegistry):
    error = refusal(Exposition(builtin.tools(), GROUPED), "notes", {"text": "milk"})

    assert error.code == "missing_action"
    assert error.details == {"tool": "notes", "actions": ["add", "delete", "list"]}
    assert error.message == "The tool 'notes' needs an action: one of add, delete, list."


@pytest.mark.parametrize("action", ["archive", "notes.add", 3, None, ["add"]])
def test_an_unknown_action_is_refused_listing_the_actions(builtin: ToolRegistry, action):
    error = refusal(Exposition(builtin.tools(), GROUPED), "notes", {"action": action})

    assert error.code == "unknown_action"
    assert error.details == {"tool": "notes", "actions": ["add", "delete", "list"]}
    assert "use one of add, delete, list" in error.message


def test_arguments_that_are_not_an_object_are_refused(builtin: ToolRegistry):
    error = refusal(Exposition(builtin.tools()), "notes_add", ["milk"])

    assert error.code == "invalid_args"


def test_an_unknown_name_that_is_listed_otherwise_says_how(builtin: ToolRegistry):
    """Found in QA: descriptions and hints name tools as Interlock does ("Call notes.list to see
    the ids"); a client following them got ``unknown_tool`` without a way forward."""
    flat = refusal(Exposition(builtin.tools()), "notes.list", {})
    assert flat.code == "unknown_tool"
    assert flat.message.endswith("on this connection; it is listed as 'notes_list'.")
    grouped = Exposition(builtin.tools(), GROUPED)
    for name in ("notes.list", "notes_list"):
        error = refusal(grouped, name, {})
        assert error.message.endswith("it is listed as 'notes' with action 'list'.")
    read_only = Exposition(builtin.tools(), ListingOptions(read_only=True))
    assert refusal(read_only, "notes.add", {}).message.endswith("list the tools to see the names.")
