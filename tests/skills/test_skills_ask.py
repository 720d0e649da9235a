"""The built-in ask skill: choice, form and confirm questions answered with ``respond``."""

from __future__ import annotations

import json

import pytest

from interlock.tools import Permission, ToolError, ToolRegistry

FORM_FIELDS = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "title": "City", "minLength": 1},
        "nights": {"type": "integer", "minimum": 1, "default": 2},
        "budget": {"type": "number"},
        "breakfast": {"type": "boolean"},
        "room": {"type": "string", "enum": ["single", "double"]},
    },
    "required": ["city", "nights"],
}


@pytest.fixture
def ask(builtin_registry: ToolRegistry):
    """``(registry, tools by short name)``."""
    names = ("choice", "form", "confirm")
    return builtin_registry, {n: builtin_registry.get(f"ask.{n}") for n in names}


def test_ask_tools_are_ask_permission_with_their_cards(ask):
    _, tools = ask

    assert {n: (t.permission, t.card, t.skill) for n, t in tools.items()} == {
        "choice": (Permission.ASK, "choice", "ask"),
        "form": (Permission.ASK, "form", "ask"),
        "confirm": (Permission.ASK, "confirm", "ask"),
    }
    assert all(t.check_response is not None for t in tools.values())


@pytest.mark.parametrize(
    ("args", "rules"),
    [
        ({"question": "Tea?", "options": ["Tea", "Coffee"]}, []),
        ({"question": "Tea?", "options": ["Tea", "Coffee"], "multiple": True}, []),
        ({"question": "Tea?", "options": ["Tea"]}, ["minItems"]),
        ({"question": "Tea?", "options": [str(n) for n in range(11)]}, ["maxItems"]),
        ({"question": "Tea?", "options": ["Tea", "Tea"]}, ["uniqueItems"]),
        ({"question": "Tea?", "options": ["Tea", " "]}, ["pattern"]),
        ({"question": "", "options": ["a", "b"]}, ["minLength", "pattern"]),
        ({"question": "Tea?", "options": ["a", "b"], "multiple": "yes"}, ["type"]),
        ({"options": ["a", "b"]}, ["required"]),
    ],
)
def test_choice_arguments(ask, args, rules):
    registry, tools = ask

    assert [e.rule for e in registry.validate_args(tools["choice"], args)] == rules


@pytest.mark.parametrize(
    ("multiple", "message", "errors"),
    [
        (False, "Tea", []),
        (False, " Tea\n", []),
        (False, '"Coffee"', []),
        (False, "42", []),
        (False, "Juice", [([], "enum")]),
        (False, '["Tea"]', [([], "enum")]),
        (True, '["Tea", "Coffee"]', []),
        (True, "[]", []),
        (True, "Tea", [([], "type")]),
        (True, '{"a": 1}', [([], "type")]),
        (True, '["Tea", "Juice", 3]', [([1], "enum"), ([2], "enum")]),
        (True, '["Tea", "Tea"]', [([], "uniqueItems")]),
    ],
)
def test_choice_responses(ask, multiple, message, errors):
    _, tools = ask
    args = {"question": "Drink?", "options": ["Tea", "Coffee", "42"], "multiple": multiple}

    found = tools["choice"].check_response(args, message)

    assert [(e.path, e.rule) for e in found] == errors


def test_a_wrong_choice_names_the_options(ask):
    _, tools = ask

    (error,) = tools["choice"].check_response({"question": "?", "options": ["A", "B"]}, "C")

    assert error.message == 'The answer must be one of the options: "A", "B".'


def test_a_flat_form_is_valid(ask):
    registry, tools = ask

    assert registry.validate_args(tools["form"], {"title": "Booking", "fields": FORM_FIELDS}) == []


def _form_errors(registry, tool, fields):
    return [
        (e.path, e.rule) for e in registry.validate_args(tool, {"title": "T", "fields": fields})
    ]


@pytest.mark.parametrize(
    ("change", "errors"),
    [
        ({"type": "array"}, [(["fields", "type"], "const")]),
        ({"properties": {}}, [(["fields", "properties"], "minProperties")]),
        ({"required": "city"}, [(["fields", "required"], "type")]),
        (
            {"additionalProperties": True},
            [(["fields", "additionalProperties"], "additionalProperties")],
        ),
        ({"required": ["city", "ghost"]}, [(["fields", "required", 1], "enum")]),
        (
            {"properties": {"address": {"type": "object", "properties": {}}}},
            [
                (["fields", "properties", "address", "properties"], "additionalProperties"),
                (["fields", "properties", "address", "type"], "enum"),
            ],
        ),
        (
            {"properties": {"tags": {"type": "array", "items": {"type": "string"}}}},
            [
                (["fields", "properties", "tags", "items"], "additionalProperties"),
                (["fields", "properties", "tags", "type"], "enum"),
            ],
        ),
        (
            {"properties": {"x": {"type": ["string", "null"]}}},
            [(["fields", "properties", "x", "type"], "enum")],
        ),
        (
            {"properties": {"x": {"title": "No type"}}},
            [(["fields", "properties", "x", "type"], "enum")],
        ),
        (
            {"properties": {"x": {"type": "integer", "enum": [1, 2]}}},
            [(["fields", "properties", "x", "enum"], "type")],
        ),
        (
            {"properties": {"x": {"type": "string", "enum": ["a", 1]}}},
            [(["fields", "properties", "x", "enum"], "enum")],
        ),
        (
            {"properties": {"x": {"type": "string", "minimum": 1}}},
            [(["fields", "properties", "x", "minimum"], "type")],
        ),
        (
            {"properties": {"x": {"type": "string", "pattern": "("}}},
            [(["fields", "properties", "x", "pattern"], "pattern")],
        ),
        (
            {"properties": {"x": {"type": "integer", "default": "two"}}},
            [(["fields", "properties", "x", "default"], "default")],
        ),
        (
            {"properties": {"x": {"type": "string", "maxLength": -1}}},
            [(["fields"], "schema")],
        ),
        ({"properties": {" ": {"type": "string"}}}, [(["fields", "properties", " "], "minLength")]),
    ],
)
def test_form_fields_must_be_a_flat_schema(ask, change, errors):
    registry, tools = ask
    fields = {**FORM_FIELDS, **change}
    if "required" not in change and "properties" in change:
        fields.pop("required")

    assert _form_errors(registry, tools["form"], fields) == errors


def test_form_field_errors_explain_the_subset(ask):
    registry, tools = ask
    fields = {"type": "object", "properties": {"a": {"type": "object"}}}

    (error,) = registry.validate_args(tools["form"], {"title": "T", "fields": fields})

    assert error.message == "A form field's type must be one of string, number, integer, boolean."


@pytest.mark.parametrize(
    ("answer", "errors"),
    [
        ({"city": "Oslo", "nights": 3}, []),
        ({"city": "Oslo", "nights": 3, "budget": 99.5, "breakfast": True, "room": "double"}, []),
        ({"city": "Oslo"}, [(["nights"], "required")]),
        ({"city": "", "nights": 0}, [(["city"], "minLength"), (["nights"], "minimum")]),
        ({"city": "Oslo", "nights": 2, "room": "suite"}, [(["room"], "enum")]),
        ({"city": "Oslo", "nights": 2.5}, [(["nights"], "type")]),
        ({"city": "Oslo", "nights": 2, "pets": 1}, [(["pets"], "additionalProperties")]),
    ],
)
def test_form_responses_are_validated_against_the_fields(ask, answer, errors):
    _, tools = ask
    args = {"title": "Booking", "fields": FORM_FIELDS}

    found = tools["form"].check_response(args, json.dumps(answer))

    assert [(e.path, e.rule) for e in found] == errors


@pytest.mark.parametrize("message", ["Oslo", "[1]", "null"])
def test_a_form_response_must_be_a_json_object(ask, message):
    _, tools = ask

    found = tools["form"].check_response({"title": "T", "fields": FORM_FIELDS}, message)

    assert [(e.path, e.rule) for e in found] == [([], "type")]


@pytest.mark.parametrize(
    ("message", "ok"),
    [
        ("yes", True),
        ("no", True),
        ("Yes", True),
        (" NO ", True),
        ('"yes"', True),
        ("maybe", False),
        ("", False),
    ],
)
def test_confirm_responses_are_yes_or_no(ask, message, ok):
    _, tools = ask

    found = tools["confirm"].check_response({"summary": "Delete all?"}, message)

    assert (found == []) is ok
    if not ok:
        assert [(e.path, e.rule, e.message) for e in found] == [
            ([], "enum", "The answer must be yes or no.")
        ]


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("choice", {"question": "?", "options": ["a", "b"]}),
        ("form", {"title": "T", "fields": FORM_FIELDS}),
        ("confirm", {"summary": "Go?"}),
    ],
)
async def test_approving_a_question_without_an_answer_fails(ask, context_for, name, args):
    registry, tools = ask

    with pytest.raises(ToolError) as caught:
        await registry.execute(tools[name], args, context_for("u1"))

    assert caught.value.code == "invalid_args"
    assert "respond" in caught.value.message
