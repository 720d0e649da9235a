"""Grouped exposition: one MCP tool per namespace, an ``action`` enum and merged fields."""

from __future__ import annotations

import hashlib
import re
from typing import Any

from interlock.mcp_bridge.exposition import Exposition
from interlock.mcp_bridge.options import ListingOptions
from interlock.tools import ToolAnnotations, ToolRegistry
from interlock.tools.schema import make_validator

GROUPED = ListingOptions(exposition="grouped")
MCP_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def definition(exposition: Exposition, name: str) -> Any:
    exposed = exposition.get(name)
    assert exposed is not None, f"{name} not listed"
    return exposed.definition


def grouped(registry: ToolRegistry) -> Exposition:
    return Exposition(registry.tools(), GROUPED)


def test_notes_become_one_tool_whose_action_enum_lists_its_tools(builtin: ToolRegistry):
    notes = definition(grouped(builtin), "notes")

    action = notes.input_schema["properties"]["action"]
    assert action["type"] == "string"
    assert action["enum"] == ["add", "delete", "list"]
    assert "add: Add a note" in action["description"]
    assert notes.input_schema["required"] == ["action"]
    assert notes.input_schema["additionalProperties"] is False
    assert notes.title == "Add a note, Delete a note, List notes"
    assert "- delete: Delete one of the person's notes" in notes.description


def test_a_grouped_listing_has_one_tool_per_namespace_and_keeps_plain_names_flat(
    builtin: ToolRegistry,
):
    names = [d.name for d in grouped(builtin).definitions()]

    assert names == ["ask", "browser", "documents", "load_skill", "notes", "suggestions"]


def test_merged_fields_say_which_actions_take_them(builtin: ToolRegistry):
    notes = definition(grouped(builtin), "notes")
    documents = definition(grouped(builtin), "documents")

    text = notes.input_schema["properties"]["text"]
    note_id = notes.input_schema["properties"]["id"]
    title = documents.input_schema["properties"]["title"]
    assert text["type"] == "string"
    assert text["description"].endswith("Required for: add.")
    assert note_id["type"] == "integer"
    assert note_id["description"] == "The note's id, as in '#3'. Required for: delete."
    # The same schema in two actions with different descriptions: one field, both texts.
    assert title["type"] == "string"
    assert title["description"] == (
        "For read: The document's title, exactly as listed. "
        "For write: The document's title. Required for: read, write."
    )


def test_an_optional_field_is_marked_for_the_actions_that_take_it(registry, make_tool):
    make_tool("files.read", {"path": {"type": "string"}}, ["path"])
    make_tool("files.delete", {"path": {"type": "string"}, "force": {"type": "boolean"}}, ["path"])
    make_tool("files.list", {"force": {"type": "boolean"}})

    schema = definition(grouped(registry), "files").input_schema

    assert schema["properties"]["path"] == {
        "type": "string",
        "description": "Required for: delete, read.",
    }
    assert schema["properties"]["force"]["description"] == "For: delete, list."


def test_a_field_typed_differently_by_two_actions_becomes_any_of_with_both_types(
    registry, make_tool
):
    make_tool("items.get", {"id": {"type": "integer", "description": "Numeric id."}}, ["id"])
    make_tool("items.find", {"id": {"type": "string", "pattern": "^[a-z]+$"}})
    make_tool("items.drop", {"id": {"type": "integer", "description": "Numeric id."}}, ["id"])

    schema = definition(grouped(registry), "items").input_schema
    field = schema["properties"]["id"]

    assert field == {
        "anyOf": [
            {"type": "integer", "description": "For drop, get: Numeric id."},
            {"type": "string", "pattern": "^[a-z]+$", "description": "For find."},
        ],
        "description": "Differs by action. Required for: drop, get. For: find.",
    }
    validator = make_validator(schema)
    assert validator.is_valid({"action": "get", "id": 3})
    assert validator.is_valid({"action": "find", "id": "abc"})
    assert not validator.is_valid({"action": "find", "id": 2.5})


def test_local_refs_of_an_action_still_resolve_in_the_merged_schema(registry, make_tool):
    make_tool(
        "shapes.draw",
        input_schema={
            "type": "object",
            "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}}},
            "properties": {"at": {"$ref": "#/$defs/point"}},
            "required": ["at"],
        },
    )
    make_tool(
        "shapes.erase",
        input_schema={
            "type": "object",
            "$defs": {"point": {"type": "string"}},  # same $defs name, another meaning
            "properties": {"where": {"$ref": "#/$defs/point"}},
        },
    )

    schema = definition(grouped(registry), "shapes").input_schema
    validator = make_validator(schema)

    assert schema["properties"]["at"]["$ref"] == "#/$defs/draw/$defs/point"
    assert schema["properties"]["where"]["$ref"] == "#/$defs/erase/$defs/point"
    assert validator.is_valid({"action": "draw", "at": {"x": 1}})
    assert not validator.is_valid({"action": "draw", "at": {"x": "one"}})
    assert validator.is_valid({"action": "erase", "where": "left"})
    assert not validator.is_valid({"action": "erase", "where": 3})


def test_an_open_action_schema_leaves_the_merged_schema_open(registry, make_tool):
    make_tool("kv.get", {"key": {"type": "string"}}, ["key"])
    make_tool("kv.put", input_schema={"type": "object", "properties": {"key": {"type": "string"}}})

    schema = definition(grouped(registry), "kv").input_schema

    assert "additionalProperties" not in schema


def test_grouped_annotations_are_the_safest_aggregate(builtin: ToolRegistry):
    exposition = grouped(builtin)

    notes = definition(exposition, "notes").annotations
    browser = definition(exposition, "browser").annotations

    # notes.list reads, notes.delete destroys: not read-only, destructive, not idempotent.
    assert (notes.read_only_hint, notes.destructive_hint, notes.idempotent_hint) == (
        False,
        True,
        False,
    )
    # Every browser tool reads: read-only, idempotent, not destructive.
    assert (browser.read_only_hint, browser.destructive_hint, browser.idempotent_hint) == (
        True,
        False,
        True,
    )


def test_open_world_is_set_when_any_action_reaches_outside(registry, make_tool):
    make_tool("web.get", annotations=ToolAnnotations(read_only=True, open_world=True))
    make_tool("web.cache", annotations=ToolAnnotations(read_only=True))

    hints = definition(grouped(registry), "web").annotations

    assert (hints.read_only_hint, hints.open_world_hint, hints.destructive_hint) == (
        True,
        True,
        False,
    )


def test_an_output_schema_is_listed_only_when_every_action_declares_one(builtin: ToolRegistry):
    exposition = grouped(builtin)

    browser = definition(exposition, "browser")
    notes = definition(exposition, "notes")

    assert browser.output_schema["type"] == "object"
    assert len(browser.output_schema["anyOf"]) == 2
    assert notes.output_schema is None
    call = exposition.resolve("browser", {"action": "time_zone"})
    assert exposition.structured_content(call, {"time_zone": "Europe/Oslo"}) == {
        "time_zone": "Europe/Oslo"
    }
    assert exposition.structured_content(exposition.resolve("notes", {"action": "list"}), {}) is (
        None
    )


def test_a_tool_with_its_own_action_field_stays_flat(registry, make_tool):
    make_tool("jobs.run", {"action": {"type": "string"}}, ["action"])
    make_tool("jobs.list")

    exposition = grouped(registry)

    assert [d.name for d in exposition.definitions()] == ["jobs", "jobs_run"]
    assert definition(exposition, "jobs").input_schema["properties"]["action"]["enum"] == ["list"]
    call = exposition.resolve("jobs_run", {"action": "start"})
    assert (call.tool.name, call.arguments) == ("jobs.run", {"action": "start"})


def test_a_group_named_like_a_flat_tool_gets_a_distinct_hashed_name(registry, make_tool):
    make_tool("notes")  # a plain tool named like the namespace below
    make_tool("notes.add", {"text": {"type": "string"}}, ["text"])
    digest = hashlib.sha256(b"group:notes").hexdigest()[:8]

    exposition = grouped(registry)

    assert [d.name for d in exposition.definitions()] == ["notes", f"notes_{digest}"]
    assert exposition.resolve("notes", {}).tool.name == "notes"
    assert exposition.resolve(f"notes_{digest}", {"action": "add"}).tool.name == "notes.add"


def test_c19_names_stay_provider_safe_and_unique_flat_and_grouped(registry, make_tool):
    """Names a remote MCP source might produce (C19): nested, dashed, long, near-identical."""
    long_ns = "mcp." + "very-long-server-name-" * 4 + "x"
    for name in (
        "mcp.a-b.c",
        "mcp_a-b.d",  # namespace mcp_a-b -> mcp_a_b, as mcp.a-b does (dashes become "_")
        "mcp.get-user.run",
        f"{long_ns}.first",
        f"{long_ns}.second",
        "mcp." + "t" * 80,
        "mcp." + "t" * 79 + "u",
        "dup.ns.one",  # namespace dup.ns -> dup_ns
        "dup_ns.two",  # namespace dup_ns -> dup_ns as well
    ):
        make_tool(name)

    for options in (ListingOptions(), GROUPED):
        names = [d.name for d in Exposition(registry.tools(), options).definitions()]
        assert all(MCP_NAME.match(name) for name in names), names
        assert len(names) == len(set(names)), names

    grouped_names = {d.name for d in grouped(registry).definitions()}
    assert {"mcp_a_b", "mcp_get_user", "mcp", "dup_ns"} <= grouped_names
    assert not any("-" in name for name in grouped_names)
    clash = hashlib.sha256(b"group:mcp_a-b").hexdigest()[:8]
    assert grouped(registry).resolve(f"mcp_a_b_{clash}", {"action": "d"}).tool.name == "mcp_a-b.d"
    assert grouped(registry).resolve("mcp_a_b", {"action": "c"}).tool.name == "mcp.a-b.c"
    dup = hashlib.sha256(b"group:dup_ns").hexdigest()[:8]
    assert grouped(registry).resolve(f"dup_ns_{dup}", {"action": "two"}).tool.name == "dup_ns.two"
    assert grouped(registry).resolve("dup_ns", {"action": "one"}).tool.name == "dup.ns.one"
    long_group = next(n for n in grouped_names if n.startswith("mcp_very"))
    assert len(long_group) == 64
    assert grouped(registry).resolve(long_group, {"action": "second"}).tool.name == (
        f"{long_ns}.second"
    )


def test_every_grouped_schema_is_valid_draft_2020_12(builtin: ToolRegistry):
    from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

    for tool in grouped(builtin).definitions():
        Draft202012Validator.check_schema(tool.input_schema)
        if tool.output_schema is not None:
            Draft202012Validator.check_schema(tool.output_schema)
