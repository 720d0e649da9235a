"""interlock.tools.schema: the start-up format check and pydantic schema inlining."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, Field

from interlock.tools import ToolRegistry
from interlock.tools import schema as schema_module
from interlock.tools.schema import (
    SUPPORTED_SCHEMA_KEYWORDS,
    SchemaRuleError,
    check_format_checkers,
    check_schema_rules,
    model_schema,
)


def test_format_checkers_are_active_in_this_environment():
    check_format_checkers()


@pytest.mark.parametrize("fmt", ["uri", "email"])
def test_a_missing_format_checker_stops_the_registry_loudly(monkeypatch, fmt):
    checkers = dict(schema_module.FORMAT_CHECKER.checkers)
    del checkers[fmt]
    monkeypatch.setattr(schema_module.FORMAT_CHECKER, "checkers", checkers)

    with pytest.raises(RuntimeError, match=f"format checks are not active: {fmt}"):
        ToolRegistry()


def test_the_start_up_check_compiles_no_uri_grammar(monkeypatch):
    """rfc3987 compiles its whole URI grammar at its first use: not at every start."""
    import rfc3987

    def refuse(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("the start-up check compiled rfc3987's grammar")

    monkeypatch.setattr(rfc3987, "get_compiled_pattern", refuse)

    check_format_checkers()


def test_jsonschemas_lenient_email_check_is_not_enough(monkeypatch):
    lenient: dict[str, Any] = dict(schema_module.FORMAT_CHECKER.checkers)
    lenient["email"] = (lambda value: "@" in value, ())
    monkeypatch.setattr(schema_module.FORMAT_CHECKER, "checkers", lenient)

    with pytest.raises(RuntimeError, match=r"email \(accepted 'nobody@'\)"):
        check_format_checkers()


def test_the_supported_subset_leaves_out_openapi_and_conditional_keywords():
    assert {"type", "properties", "$ref", "anyOf", "format"} <= SUPPORTED_SCHEMA_KEYWORDS
    assert not {"nullable", "discriminator", "if", "patternProperties"} & SUPPORTED_SCHEMA_KEYWORDS


def test_check_schema_rules_accepts_boolean_subschemas():
    check_schema_rules(
        {"type": "object", "properties": {"any": True}, "additionalProperties": False},
        require_object_root=True,
    )


def test_check_schema_rules_refuses_a_schema_too_deep_to_encode():
    schema: dict[str, Any] = {}
    for _ in range(5000):
        schema = {"not": schema}

    with pytest.raises(SchemaRuleError, match="nests deeper than 10 levels"):
        check_schema_rules(schema, require_object_root=False)


def test_model_schema_merges_annotation_siblings_of_a_ref():
    class Inner(BaseModel):
        a: int

    class Outer(BaseModel):
        inner: Inner = Field(description="The inner part", title="Inner part")

    inner = model_schema(Outer)["properties"]["inner"]

    assert inner == {
        "type": "object",
        "properties": {"a": {"title": "A", "type": "integer"}},
        "required": ["a"],
        "title": "Inner part",
        "description": "The inner part",
    }


def test_model_schema_puts_a_ref_with_overlapping_rules_under_all_of():
    schema = {
        "type": "object",
        "$defs": {"S": {"type": "string"}},
        "properties": {"s": {"$ref": "#/$defs/S", "type": "string", "maxLength": 3}},
    }

    class Fake(BaseModel):
        @classmethod
        def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
            return schema

    assert model_schema(Fake)["properties"]["s"] == {
        "type": "string",
        "maxLength": 3,
        "allOf": [{"type": "string"}],
    }


def test_model_schema_inlines_refs_under_property_names_that_look_like_keywords():
    class Inner(BaseModel):
        a: int

    class Outer(BaseModel):
        default: Inner
        enum: list[Inner]

    properties = model_schema(Outer)["properties"]

    assert properties["default"]["properties"]["a"]["type"] == "integer"
    assert properties["enum"]["items"]["properties"]["a"]["type"] == "integer"
