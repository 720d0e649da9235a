"""The built-in suggestions skill: the model offers options, the person's choice comes back."""

from __future__ import annotations

import pytest

from interlock.tools import FieldError, Permission, ToolError, ToolResult


@pytest.fixture
def suggestions(builtin_registry):
    return builtin_registry.get("suggestions")


def test_suggestions_is_an_ask_tool_shown_as_a_choice_card(suggestions):
    assert (suggestions.title, suggestions.permission, suggestions.card) == (
        "Suggestions",
        Permission.ASK,
        "choice",
    )
    assert suggestions.provider_name == "suggestions"


def test_offered_options_without_a_choice_are_valid(builtin_registry, suggestions):
    assert builtin_registry.validate_args(suggestions, {"options": ["Tea", "Coffee"]}) == []


@pytest.mark.parametrize(
    ("args", "rules"),
    [
        ({"options": ["only one"]}, ["minItems"]),
        ({"options": [str(n) for n in range(7)]}, ["maxItems"]),
        ({"options": ["", "b"]}, ["minLength", "pattern"]),
        ({"options": [" ", "b"]}, ["pattern"]),
        ({"options": ["x" * 201, "b"]}, ["maxLength"]),
        ({"options": ["a", "a"]}, ["uniqueItems"]),
        ({"options": ["a", 2]}, ["type"]),
        ({"options": ["a", "b"], "extra": 1}, ["additionalProperties"]),
        ({}, ["required"]),
    ],
)
def test_bad_options_are_refused(builtin_registry, suggestions, args, rules):
    assert [e.rule for e in builtin_registry.validate_args(suggestions, args)] == rules


def test_a_choice_that_is_not_offered_fails_enum_at_option(builtin_registry, suggestions):
    errors = builtin_registry.validate_args(
        suggestions, {"options": ["Tea", "Coffee"], "option": "Juice"}
    )

    assert errors == [
        FieldError(
            path=["option"], message="'Juice' is not one of the offered options.", rule="enum"
        )
    ]


def test_a_choice_among_the_options_is_valid(builtin_registry, suggestions):
    args = {"options": ["Tea", "Coffee"], "option": "Coffee"}

    assert builtin_registry.validate_args(suggestions, args) == []


async def test_running_with_a_choice_reports_it(builtin_registry, suggestions, context_for):
    args = {"options": ["Tea", "Coffee"], "option": "Coffee"}

    result = await builtin_registry.execute(suggestions, args, context_for("user_a"))

    assert result == ToolResult(text="The person chose: Coffee", data={"option": "Coffee"})


async def test_running_without_a_choice_fails_with_invalid_args(
    builtin_registry, suggestions, context_for
):
    with pytest.raises(ToolError) as caught:
        await builtin_registry.execute(
            suggestions, {"options": ["Tea", "Coffee"]}, context_for("user_a")
        )

    assert (caught.value.code, caught.value.message) == ("invalid_args", "No option was chosen")
    assert caught.value.hint
