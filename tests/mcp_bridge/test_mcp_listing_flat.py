"""Flat exposition: one MCP tool per Interlock tool, with its exact schemas and hints."""

from __future__ import annotations

import re

import pytest

from interlock.mcp_bridge.exposition import Exposition, ResolvedCall
from interlock.tools import ToolAnnotations, ToolRegistry

MCP_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def test_each_builtin_tool_is_one_mcp_tool_named_by_its_provider_name(builtin: ToolRegistry):
    exposition = Exposition(builtin.tools())

    names = [d.name for d in exposition.definitions()]

    assert names == sorted(t.provider_name for t in builtin.tools())
    assert {"notes_add", "notes_delete", "notes_list", "documents_write"} <= set(names)
    assert all(MCP_NAME.match(name) for name in names)


def test_a_flat_definition_carries_title_description_and_the_exact_input_schema(
    builtin: ToolRegistry,
):
    add = builtin.get("notes.add")
    assert add is not None

    definition = Exposition([add]).definitions()[0]

    assert definition.name == "notes_add"
    assert definition.title == "Add a note"
    assert definition.description == add.description
    assert definition.input_schema == add.input_schema
    assert definition.input_schema is not add.input_schema  # a copy, never the registry's


def test_an_object_output_schema_is_listed_and_the_data_becomes_structured_content(
    builtin: ToolRegistry,
):
    listing = builtin.get("notes.list")
    add = builtin.get("notes.add")
    assert listing is not None and add is not None
    exposition = Exposition([listing, add])

    by_name = {d.name: d for d in exposition.definitions()}
    call = exposition.resolve("notes_list", {})
    data = {"notes": [{"id": 1, "text": "milk"}]}

    assert by_name["notes_list"].output_schema == listing.output_schema
    assert by_name["notes_add"].output_schema is None
    assert exposition.structured_content(call, data) == data
    assert exposition.structured_content(exposition.resolve("notes_add", {}), {"id": 1}) is None


def test_an_output_schema_whose_root_is_not_an_object_is_left_out(make_tool):
    tool = make_tool("calc.sum", output_schema={"type": "integer"})
    exposition = Exposition([tool])

    assert exposition.definitions()[0].output_schema is None
    assert exposition.structured_content(exposition.resolve("calc_sum", {}), 3) is None


def test_read_tools_are_read_only_and_write_tools_destructive_unless_declared(
    builtin: ToolRegistry,
):
    hints = {
        d.name: d.annotations
        for d in Exposition(builtin.tools()).definitions()
        if d.annotations is not None
    }

    listing, add, delete, write = (
        hints["notes_list"],
        hints["notes_add"],
        hints["notes_delete"],
        hints["documents_write"],
    )
    assert (listing.read_only_hint, listing.destructive_hint, listing.idempotent_hint) == (
        True,
        False,
        True,
    )
    # notes.add declares destructive=False (it only adds); documents.write declares nothing.
    assert (add.read_only_hint, add.destructive_hint) == (False, False)
    assert (delete.read_only_hint, delete.destructive_hint) == (False, True)
    assert (write.read_only_hint, write.destructive_hint, write.idempotent_hint) == (
        False,
        True,
        False,
    )
    assert hints["browser_time_zone"].read_only_hint is True
    assert all(h.open_world_hint is False for h in hints.values())
    assert add.title == "Add a note"


def test_declared_hints_override_the_defaults(make_tool):
    tool = make_tool(
        "web.post",
        write=True,
        annotations=ToolAnnotations(destructive=False, idempotent=True, open_world=True),
    )

    hints = Exposition([tool]).definitions()[0].annotations

    assert hints is not None
    assert (
        hints.read_only_hint,
        hints.destructive_hint,
        hints.idempotent_hint,
        hints.open_world_hint,
    ) == (False, False, True, True)


def test_a_flat_call_maps_back_to_its_tool_with_the_arguments_unchanged(builtin: ToolRegistry):
    exposition = Exposition(builtin.tools())
    arguments = {"id": 2}

    call = exposition.resolve("notes_delete", arguments)

    assert call == ResolvedCall(
        tool=builtin.get("notes.delete"),  # type: ignore[arg-type]
        arguments={"id": 2},
        mcp_name="notes_delete",
    )
    assert call.arguments is not arguments


def test_a_tool_that_was_never_registered_is_refused(registry, make_tool):
    from interlock.tools import Tool

    stray = Tool(
        name="stray.tool",
        title="Stray",
        description="Not registered.",
        input_schema={"type": "object"},
        handler=lambda args, ctx: "x",
    )

    with pytest.raises(ValueError, match="not registered"):
        Exposition([stray])


def test_a_tool_given_twice_is_a_programming_error(builtin: ToolRegistry):
    add = builtin.get("notes.add")
    assert add is not None

    with pytest.raises(ValueError, match="given twice"):
        Exposition([add, add])


def test_no_structured_content_when_the_data_was_dropped(builtin: ToolRegistry):
    exposition = Exposition(builtin.tools())

    assert exposition.structured_content(exposition.resolve("notes_list", {}), None) is None
