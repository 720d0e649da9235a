"""Suggestions: the model offers options, the person picks one on a ``choice`` card.

The model proposes ``{"options": [...]}``; the call pauses (``ASK``) and the person answers
with an ``edit`` decision that adds ``option``, checked by :func:`check_choice` to be one of
``options``. Running the tool then reports the choice back to the model.
"""

from __future__ import annotations

from typing import Any

from interlock.tools import FieldError, Permission, ToolContext, ToolError, ToolResult, tool

MIN_OPTIONS = 2
MAX_OPTIONS = 6
MAX_OPTION_CHARS = 200
MAX_QUESTION_CHARS = 300


def check_choice(args: dict[str, Any]) -> list[FieldError]:
    """Return an ``enum`` error at ``["option"]`` when ``option`` is given but not offered."""
    option = args.get("option")
    if option is not None and option not in args["options"]:
        return [
            FieldError(
                path=["option"],
                message=f"{option!r} is not one of the offered options.",
                rule="enum",
            )
        ]
    return []


@tool(
    name="suggestions",
    title="Suggestions",
    description=(
        f"Offer the person {MIN_OPTIONS} to {MAX_OPTIONS} short options to choose from, such as "
        "next steps or answers to a question, with the 'question' they answer. Leave 'option' "
        "out: the person picks one (or declines) and the result says which."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "question": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_QUESTION_CHARS,
                "pattern": r"\S",
                "description": "The question the options answer, one short sentence; the "
                "card's heading.",
            },
            "options": {
                "type": "array",
                "items": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_OPTION_CHARS,
                    "pattern": r"\S",
                },
                "minItems": MIN_OPTIONS,
                "maxItems": MAX_OPTIONS,
                "uniqueItems": True,
                "description": "The choices, each a short phrase.",
            },
            "option": {"type": "string", "description": "The chosen option, set by the person."},
        },
        "required": ["options"],
        "additionalProperties": False,
    },
    permission=Permission.ASK,
    card="choice",
    check_args=check_choice,
)
def suggestions(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Report the person's choice.

    Raises:
        ToolError: ``invalid_args`` when no option was chosen (the call was approved as the
            model proposed it, without a choice).
    """
    option = args.get("option")
    if option is None:
        raise ToolError(
            "invalid_args",
            "No option was chosen",
            hint="Ask the person which option they prefer, or offer the options again.",
        )
    return ToolResult(text=f"The person chose: {option}", data={"option": option})
