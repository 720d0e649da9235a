"""ToolRegistry: the schema rules a tool's input and output schemas meet at registration."""

from __future__ import annotations

from typing import Any

import pytest

from interlock.tools.schema import DRAFT_2020_12, MAX_SCHEMA_CHARS, MAX_SCHEMA_DEPTH
from support.registration import registration_reason


def nested_schema(levels: int) -> dict[str, Any]:
    """An object schema ``levels`` schema levels deep (the root counts as level 1)."""
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels - 1):
        schema = {"type": "object", "properties": {"child": schema}}
    return schema


@pytest.mark.parametrize(
    "schema",
    [{"type": "array", "items": {"type": "string"}}, {"properties": {}}, {"type": ["object"]}],
)
def test_register_refuses_an_input_schema_whose_root_is_not_type_object(
    registry, make_tool, schema
):
    reason = registration_reason(registry, make_tool(input_schema=schema))

    assert reason == 'input_schema must have "type": "object" at the root'


def test_register_refuses_an_input_schema_that_is_not_a_dict(registry, make_tool):
    reason = registration_reason(registry, make_tool(input_schema=[]))

    assert reason == "input_schema must be a JSON object, got list"


@pytest.mark.parametrize(
    ("schema", "where"),
    [
        ({"type": "object", "if": {}, "then": {}}, "'if', 'then' at /"),
        (
            {"type": "object", "properties": {"a": {"type": "string", "nullable": True}}},
            "'nullable' at /properties/a",
        ),
        ({"type": "object", "patternProperties": {"^x": {}}}, "'patternProperties' at /"),
        (
            {"type": "object", "properties": {"a": {"type": "array", "contains": {}}}},
            "'contains' at /properties/a",
        ),
    ],
)
def test_register_refuses_keywords_outside_the_supported_subset(registry, make_tool, schema, where):
    reason = registration_reason(registry, make_tool(input_schema=schema))

    assert reason == f"input_schema uses unsupported keyword {where}"


def test_register_reads_property_names_as_names_not_keywords(registry, make_tool):
    schema = {
        "type": "object",
        "properties": {"nullable": {"type": "boolean"}, "if": {"type": "string"}},
        "enum": [{"if": 1}],
    }

    registry.register(make_tool(input_schema=schema))


def test_register_accepts_a_schema_exactly_at_the_depth_limit(registry, make_tool):
    registry.register(make_tool(input_schema=nested_schema(MAX_SCHEMA_DEPTH)))


def test_register_refuses_a_schema_nested_deeper_than_ten_levels(registry, make_tool):
    reason = registration_reason(registry, make_tool(input_schema=nested_schema(11)))

    assert reason.startswith("input_schema nests deeper than 10 levels (at /properties/child/")


def test_register_refuses_a_schema_over_20000_characters_of_json(registry, make_tool):
    schema = {"type": "object", "description": "d" * MAX_SCHEMA_CHARS}

    reason = registration_reason(registry, make_tool(input_schema=schema))

    assert reason == ("input_schema is 20,034 characters of JSON, more than the 20,000 allowed")


@pytest.mark.parametrize(
    ("schema", "detail"),
    [
        ({"type": "object", "properties": {"a": {"type": "strnig"}}}, "/properties/a/type"),
        ({"type": "object", "required": "a"}, "/required"),
        ({"type": "object", "minProperties": -1}, "/minProperties"),
    ],
)
def test_register_refuses_a_schema_that_is_not_valid_draft_2020_12(
    registry, make_tool, schema, detail
):
    reason = registration_reason(registry, make_tool(input_schema=schema))

    assert reason.startswith(f"input_schema is not a valid Draft 2020-12 schema at {detail}: ")


def test_register_refuses_a_schema_that_is_not_json(registry, make_tool):
    schema = {"type": "object", "default": {1, 2}}

    reason = registration_reason(registry, make_tool(input_schema=schema))

    assert reason.startswith("input_schema is not JSON-serializable")


def test_register_refuses_a_remote_ref(registry, make_tool):
    schema = {"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}}

    reason = registration_reason(registry, make_tool(input_schema=schema))

    assert reason == (
        "input_schema uses $ref 'https://example.com/s.json' at /properties/a; "
        "only local '#/...' references are supported"
    )


def test_register_refuses_a_ref_that_points_at_nothing(registry, make_tool):
    schema = {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}

    reason = registration_reason(registry, make_tool(input_schema=schema))

    assert (
        reason == "input_schema has $ref '#/$defs/missing' at /properties/a that points at nothing"
    )


@pytest.mark.parametrize(
    ("schema", "loop"),
    [
        (
            {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/a"}},
                "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
            },
            "/$defs/a -> /$defs/b -> /$defs/a",
        ),
        ({"type": "object", "$ref": "#"}, "/ -> /"),
        (
            {
                "type": "object",
                "allOf": [{"$ref": "#/$defs/x"}],
                "$defs": {"x": {"anyOf": [{"not": {"$ref": "#/$defs/x"}}]}},
            },
            "/$defs/x -> /$defs/x/anyOf/0 -> /$defs/x/anyOf/0/not -> /$defs/x",
        ),
    ],
)
def test_register_refuses_a_ref_loop_that_never_reaches_the_data(registry, make_tool, schema, loop):
    # Validating anything against these never ends (a RecursionError, as a hostile remote MCP
    # server's schema could make happen on every call).
    reason = registration_reason(registry, make_tool(input_schema=schema))

    assert reason == f"input_schema has a $ref loop that never reaches the data ({loop})"


def test_register_accepts_local_refs_including_recursive_ones(registry, make_tool):
    schema = {
        "type": "object",
        "$defs": {
            "node": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
            }
        },
        "properties": {"root": {"$ref": "#/$defs/node"}},
    }

    tool = registry.register(make_tool(input_schema=schema))

    assert registry.validate_args(tool, {"root": {"children": [{"children": []}]}}) == []
    assert registry.validate_args(tool, {"root": {"children": [1]}})[0].path == [
        "root",
        "children",
        0,
    ]


def test_register_refuses_a_schema_declaring_another_draft(registry, make_tool):
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}

    reason = registration_reason(registry, make_tool(input_schema=schema))

    assert reason.startswith("input_schema declares $schema 'http://json-schema.org/draft-07")


def test_register_accepts_the_draft_2020_12_schema_uri(registry, make_tool):
    registry.register(make_tool(input_schema={"$schema": DRAFT_2020_12, "type": "object"}))


def test_register_refuses_an_id_below_the_root(registry, make_tool):
    schema = {"type": "object", "properties": {"a": {"$id": "https://example.com/a"}}}

    reason = registration_reason(registry, make_tool(input_schema=schema))

    assert reason == "input_schema uses $id or $schema below the root (at /properties/a)"


def test_register_checks_the_output_schema_without_requiring_an_object_root(registry, make_tool):
    registry.register(make_tool(name="a", output_schema={"type": "array"}))

    reason = registration_reason(
        registry, make_tool(name="b", output_schema={"type": "array", "contains": {}})
    )

    assert reason == "output_schema uses unsupported keyword 'contains' at /"
