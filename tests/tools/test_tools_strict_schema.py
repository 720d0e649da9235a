"""Strict forms of tool schemas (OpenAI's strict tool calling) and nulls read back as absent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from pydantic import BaseModel, Field

from interlock.skills.loader import load_skills
from interlock.tools import ToolRegistry, tool
from interlock.tools.schema import model_schema
from interlock.tools.schema.strict import absent_for_nulls, strict_form
from support.openai_stub import strict_schema_problems

REPO = Path(__file__).resolve().parents[2]


def _obj(props: dict[str, Any], required: list[str] | None = None, **more: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required or [], **more}


def _strict(schema: dict[str, Any]) -> dict[str, Any]:
    form = strict_form(schema)
    assert form.parameters is not None, form.reason
    assert strict_schema_problems(form.parameters) == []
    Draft202012Validator.check_schema(form.parameters)
    return form.parameters


class Address(BaseModel):
    street: str
    zip: str | None = None


class Person(BaseModel):
    name: str = Field(min_length=1, description="Full name.")
    age: int | None = None
    home: Address
    tags: list[str] = []


def test_pydantic_model_schema_with_optional_and_nested_fields_converts() -> None:
    parameters = _strict(model_schema(Person))

    assert parameters["required"] == ["name", "age", "home", "tags"]
    assert parameters["properties"]["name"] == {"description": "Full name.", "type": "string"}
    age = parameters["properties"]["age"]
    assert age == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    assert parameters["properties"]["tags"] == {
        "type": ["array", "null"],
        "items": {"type": "string"},
    }
    assert parameters["properties"]["home"]["required"] == ["street", "zip"]


def test_choices_consts_enums_and_formats() -> None:
    parameters = _strict(
        _obj(
            {
                "kind": {"oneOf": [{"const": "a"}, {"const": "b"}]},
                "level": {"enum": [1, 2, 3]},
                "mode": {"type": "string", "enum": ["x", "y"]},
                "site": {"type": "string", "format": "uri", "maxLength": 200},
                "day": {"type": "string", "format": "date"},
            },
            ["kind"],
        )
    )

    props = parameters["properties"]
    assert props["kind"] == {
        "anyOf": [{"type": "string", "enum": ["a"]}, {"type": "string", "enum": ["b"]}]
    }
    assert props["level"] == {"type": ["integer", "null"], "enum": [1, 2, 3, None]}
    assert props["mode"] == {"type": ["string", "null"], "enum": ["x", "y", None]}
    assert props["site"] == {"type": ["string", "null"]}  # uri and maxLength left out
    assert props["day"] == {"type": ["string", "null"], "format": "date"}


def test_an_optional_property_that_already_takes_null_is_not_doubled() -> None:
    parameters = _strict(
        _obj(
            {
                "x": {"type": ["string", "null"]},
                "y": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            }
        )
    )

    assert parameters["properties"]["x"] == {"type": ["string", "null"]}
    assert parameters["properties"]["y"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}


def test_refs_anywhere_and_all_of_are_inlined_and_merged() -> None:
    schema = {
        "type": "object",
        "$defs": {
            "base": _obj({"id": {"type": "integer"}}, ["id"]),
            "named": {"allOf": [{"$ref": "#/$defs/base"}, _obj({"name": {"type": "string"}})]},
        },
        "properties": {
            "item": {"$ref": "#/$defs/named", "description": "The item."},
            "copy": {"$ref": "#/properties/item"},
        },
        "required": ["item"],
    }

    parameters = _strict(schema)

    item = parameters["properties"]["item"]
    assert item["description"] == "The item."
    assert item["properties"] == {"id": {"type": "integer"}, "name": {"type": ["string", "null"]}}
    assert item["required"] == ["id", "name"]
    assert parameters["properties"]["copy"]["type"] == ["object", "null"]
    assert "$defs" not in parameters


@pytest.mark.parametrize(
    ("schema", "reason"),
    [
        (_obj({"x": {"not": {"type": "string"}}}), "'not' has no strict form"),
        (_obj({"x": {"type": "array", "prefixItems": [{"type": "string"}]}}), "'prefixItems'"),
        (_obj({"x": {"type": "array"}}), "array without an items schema"),
        (_obj({"x": {}}), "any type"),
        (_obj({"x": True}), "boolean schema"),
        (_obj({"x": {"type": "object"}}), "no declared properties"),
        (
            _obj({"x": {"type": "object", "additionalProperties": {"type": "integer"}}}),
            "additionalProperties schema",
        ),
        (_obj({"next": {"$ref": "#"}}), "refers to itself"),
        (_obj({"x": {"allOf": [{"type": "string"}, {"type": "integer"}]}}), "disagree on 'type'"),
        ({"type": "object", "anyOf": [_obj({"a": {"type": "string"}})]}, "root must be one object"),
    ],
)
def test_schemas_without_a_strict_form_say_why(schema: dict[str, Any], reason: str) -> None:
    form = strict_form(schema)

    assert form.parameters is None
    assert form.reason is not None and reason in form.reason


def test_nesting_past_ten_levels_and_reference_bombs_have_no_strict_form() -> None:
    deep: dict[str, Any] = {"type": "string"}
    for _ in range(11):
        deep = _obj({"x": deep}, ["x"])
    assert "deeper than 10" in str(strict_form(deep).reason)

    defs = {
        f"d{n}": _obj(
            {"a": {"$ref": f"#/$defs/d{n + 1}"}, "b": {"$ref": f"#/$defs/d{n + 1}"}}, ["a", "b"]
        )
        for n in range(20)
    }
    defs["d20"] = {"type": "string"}
    bomb = {"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/d0"}}}
    assert "once $refs are inlined" in str(strict_form(bomb).reason)


def test_every_builtin_tool_has_a_strict_valid_form_or_a_reason() -> None:
    registry = ToolRegistry()
    load_skills(registry, [REPO / "skills"])
    for registered in registry.tools():
        form = strict_form(registered.input_schema)
        if form.parameters is None:
            assert form.reason
        else:
            assert strict_schema_problems(form.parameters) == [], registered.name


SEARCH = {
    "type": "object",
    "properties": {
        "q": {"type": "string"},
        "opts": _obj({"limit": {"type": "integer"}, "after": {"type": ["string", "null"]}}),
        "hits": {
            "type": "array",
            "items": _obj({"id": {"type": "integer"}, "tag": {"type": "string"}}, ["id"]),
        },
        "pick": {"anyOf": [{"type": "integer"}, _obj({"name": {"type": "string"}})]},
        "must": {"type": "string"},
    },
    "required": ["q", "must"],
}


@pytest.mark.parametrize(
    ("sent", "read"),
    [
        ({"q": "x", "opts": None, "must": "m"}, {"q": "x", "must": "m"}),
        (
            {"q": "x", "opts": {"limit": None, "after": None}, "must": "m"},
            {"q": "x", "opts": {"after": None}, "must": "m"},
        ),
        (
            {"q": "x", "hits": [{"id": 1, "tag": None}, {"id": None}], "must": "m"},
            {"q": "x", "hits": [{"id": 1}, {"id": None}], "must": "m"},
        ),
        ({"q": "x", "pick": {"name": None}, "must": "m"}, {"q": "x", "pick": {}, "must": "m"}),
        ({"q": "x", "pick": 3, "must": None}, {"q": "x", "pick": 3, "must": None}),
        ({"q": "x", "unknown": None, "must": "m"}, {"q": "x", "unknown": None, "must": "m"}),
    ],
)
def test_nulls_for_optional_properties_read_back_as_absent(
    sent: dict[str, Any], read: dict[str, Any]
) -> None:
    assert absent_for_nulls(SEARCH, sent) == read


def test_registry_sends_strict_forms_and_reads_nulls_back_only_with_strict_on() -> None:
    search = tool(name="x.search", title="Search", description="Search.", input_schema=SEARCH)(
        lambda args, ctx: "ok"
    )
    free = tool(
        name="x.free",
        title="Free",
        description="Anything.",
        input_schema=_obj({"m": {"type": "object", "additionalProperties": {"type": "string"}}}),
    )(lambda args, ctx: "ok")
    plain = ToolRegistry()
    strict = ToolRegistry(strict_tools=True)
    for registry in (plain, strict):
        registry.register_many(
            [
                tool(
                    name=t.name,
                    title=t.title,
                    description=t.description,
                    input_schema=t.input_schema,
                )(t.handler)
                for t in (search, free)
            ]
        )

    plain_specs = plain.provider_specs(plain.tools())
    strict_specs = {
        s["function"]["name"]: s["function"] for s in strict.provider_specs(strict.tools())
    }

    assert all("strict" not in s["function"] for s in plain_specs)
    assert strict_specs["x_search"]["strict"] is True
    assert strict_specs["x_search"]["parameters"]["additionalProperties"] is False
    assert "strict" not in strict_specs["x_free"]
    args = {"q": "x", "opts": None, "must": "m"}
    strict_search = strict.get("x.search")
    plain_search = plain.get("x.search")
    assert strict_search is not None and plain_search is not None
    assert strict.model_args(strict_search, args) == {"q": "x", "must": "m"}
    assert plain.model_args(plain_search, args) == args
    assert strict.validate_args(strict_search, strict.model_args(strict_search, args)) == []
