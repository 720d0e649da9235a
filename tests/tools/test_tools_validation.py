"""ToolRegistry.validate_args: Draft 2020-12 with formats, then the tool's check_args."""

from __future__ import annotations

from typing import Any

import pytest

from interlock.tools import FieldError
from interlock.tools.schema import MAX_MESSAGE_CHARS

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "maxLength": 10},
        "count": {"type": "integer"},
        "items": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
        },
    },
    "required": ["text"],
    "additionalProperties": False,
}


@pytest.fixture
def demo(registry, make_tool):
    return registry.register(make_tool(input_schema=SCHEMA))


def test_valid_args_give_no_errors(registry, demo):
    assert registry.validate_args(demo, {"text": "hi", "count": 2, "items": [{"name": "a"}]}) == []


def test_a_value_of_the_wrong_type_fails_type_at_its_path(registry, demo):
    errors = registry.validate_args(demo, {"text": 5})

    assert errors == [FieldError(path=["text"], message="Must be text.", rule="type")]


def test_a_missing_required_property_fails_required_with_its_name_in_the_path(registry, demo):
    errors = registry.validate_args(demo, {})

    assert errors == [FieldError(path=["text"], message="Is required.", rule="required")]


def test_an_extra_property_fails_additional_properties_with_its_name_in_the_path(registry, demo):
    errors = registry.validate_args(demo, {"text": "hi", "extra": 1, "more": 2})

    assert [(e.path, e.rule) for e in errors] == [
        (["extra"], "additionalProperties"),
        (["more"], "additionalProperties"),
    ]
    # The fields it does take are named as the person reads them (titles, else keys in words).
    assert errors[0].message == "Is not a field here (the fields are: Count, Items, Text)."


@pytest.mark.parametrize("count", [2.5, "2", True, None, [2]])
def test_an_integer_field_refuses_fractions_strings_and_booleans(registry, demo, count):
    errors = registry.validate_args(demo, {"text": "hi", "count": count})

    assert [(e.path, e.rule) for e in errors] == [(["count"], "type")]


@pytest.mark.parametrize("count", [2, -7, 2.0])
def test_an_integer_field_accepts_whole_numbers(registry, demo, count):
    assert registry.validate_args(demo, {"text": "hi", "count": count}) == []


@pytest.mark.parametrize(
    ("args", "kind"), [([], "list"), (None, "null"), ("text", "str"), (3, "int")]
)
def test_args_that_are_not_an_object_give_one_root_type_error(registry, demo, args, kind):
    errors = registry.validate_args(demo, args)

    assert errors == [
        FieldError(path=[], message=f"Arguments must be a JSON object, got {kind}.", rule="type")
    ]


def test_errors_are_sorted_by_path_with_array_indexes(registry, demo):
    args = {"count": "x", "items": [{"name": "a"}, {}, {"name": 1}], "text": 1}

    errors = registry.validate_args(demo, args)

    assert [(e.path, e.rule) for e in errors] == [
        (["count"], "type"),
        (["items", 1, "name"], "required"),
        (["items", 2, "name"], "type"),
        (["text"], "type"),
    ]


def test_long_messages_are_cut(registry, make_tool):
    tool = registry.register(
        make_tool(
            input_schema={
                "type": "object",
                "properties": {"text": {"type": "string", "pattern": "^" + "y" * 600 + "$"}},
            }
        )
    )
    errors = registry.validate_args(tool, {"text": "x" * 5000})

    assert errors[0].rule == "pattern"
    assert len(errors[0].message) == MAX_MESSAGE_CHARS
    assert errors[0].message.endswith("…")


def test_case_c18_formats_are_checked_so_not_a_url_and_nobody_fail(registry, make_tool):
    tool = registry.register(
        make_tool(
            input_schema={
                "type": "object",
                "properties": {
                    "site": {"type": "string", "format": "uri"},
                    "mail": {"type": "string", "format": "email"},
                },
            }
        )
    )

    errors = registry.validate_args(tool, {"site": "not a url", "mail": "nobody"})

    assert [(e.path, e.rule) for e in errors] == [(["mail"], "format"), (["site"], "format")]
    assert registry.validate_args(tool, {"site": "https://example.com/a?b=c"}) == []
    assert registry.validate_args(tool, {"mail": "ada@example.com"}) == []


@pytest.mark.parametrize("mail", ["nobody@", "@example.com", "a b@example.com", "a@@example.com"])
def test_email_format_is_stricter_than_an_at_sign(registry, make_tool, mail):
    tool = registry.register(
        make_tool(
            input_schema={"type": "object", "properties": {"m": {"format": "email"}}},
        )
    )

    assert [e.rule for e in registry.validate_args(tool, {"m": mail})] == ["format"]


def test_date_time_format_is_checked(registry, make_tool):
    tool = registry.register(
        make_tool(
            input_schema={"type": "object", "properties": {"at": {"format": "date-time"}}},
        )
    )

    assert registry.validate_args(tool, {"at": "2025-01-02T03:04:05Z"}) == []
    assert [e.rule for e in registry.validate_args(tool, {"at": "tomorrow"})] == ["format"]


def test_check_args_runs_after_the_schema_passes(registry, make_tool):
    seen: list[dict[str, Any]] = []

    def check(args: dict[str, Any]) -> list[FieldError]:
        seen.append(args)
        return [FieldError(path=["text"], message="Say something else.", rule="not")]

    tool = registry.register(make_tool(check_args=check))

    assert registry.validate_args(tool, {"text": "hello"}) == [
        FieldError(path=["text"], message="Say something else.", rule="not")
    ]
    assert seen == [{"text": "hello"}]


def test_check_args_does_not_run_when_the_schema_fails(registry, make_tool):
    seen: list[dict[str, Any]] = []

    def check(args: dict[str, Any]) -> list[FieldError]:
        seen.append(args)
        return []

    tool = registry.register(make_tool(check_args=check))

    assert [e.rule for e in registry.validate_args(tool, {"text": 1})] == ["type"]
    assert seen == []


def test_a_check_args_that_raises_gives_a_check_args_error_instead_of_raising(registry, make_tool):
    def check(args: dict[str, Any]) -> list[FieldError]:
        raise KeyError("oops")

    tool = registry.register(make_tool(check_args=check))

    errors = registry.validate_args(tool, {"text": "hi"})

    assert errors == [
        FieldError(
            path=[],
            message="The argument check of the tool “Echo” raised KeyError: 'oops'.",
            rule="check_args",
        )
    ]


def test_a_check_args_returning_the_wrong_type_gives_a_check_args_error(registry, make_tool):
    tool = registry.register(make_tool(check_args=lambda args: "fine"))

    assert [e.rule for e in registry.validate_args(tool, {"text": "hi"})] == ["check_args"]


def test_an_unregistered_tool_is_validated_against_its_own_schema(make_tool, registry):
    tool = make_tool(input_schema={"type": "object", "required": ["x"]})

    assert [e.path for e in registry.validate_args(tool, {})] == [["x"]]


def test_field_errors_serialize_to_the_api_shape(registry, demo):
    (error,) = registry.validate_args(demo, {"text": "hi", "count": 2.5})

    assert error.as_dict() == {
        "path": ["count"],
        "message": "Must be a whole number.",
        "rule": "type",
    }


@pytest.mark.parametrize("character", ["\x1b", "\x07", "\x01", "\x0b"])
def test_a_control_character_in_any_string_fails_control_character_at_its_path(
    registry, demo, character
):
    errors = registry.validate_args(demo, {"text": f"a{character}b", "items": [{"name": "ok"}]})

    code = f"U+{ord(character):04X}"
    assert errors == [
        FieldError(
            path=["text"],
            message=f"Contains a control character ({code}), which is not text: remove it.",
            rule="control_character",
        )
    ]


def test_control_characters_are_found_in_nested_values_and_keys_whatever_the_schema(
    registry, make_tool
):
    free = registry.register(make_tool(input_schema={"type": "object"}))

    errors = registry.validate_args(free, {"a": [{"b": "\x1b[2J"}], "k\x07": 1})

    assert [(e.path, e.rule) for e in errors] == [
        (["a", 0, "b"], "control_character"),
        (["k\x07"], "control_character"),
    ]


def test_tabs_and_line_breaks_are_not_control_characters_here(registry, demo):
    assert registry.validate_args(demo, {"text": "a\tb\r\nc"}) == []
