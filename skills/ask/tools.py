"""Ask: the model asks the person a structured question; the person's answer is the result.

Every tool here is ``ASK``: the call pauses on a card (``choice``, ``form`` or ``confirm``)
and the person answers with the ``respond`` decision, whose ``message`` becomes the tool
result without the handler running. The server checks that message against the question
with each tool's ``check_response`` (422 ``invalid_args`` with field errors when it does not
fit). Approving a question without answering it fails the call with ``invalid_args``.
"""

from __future__ import annotations

import json
import re
from typing import Any, NoReturn

from interlock.tools import FieldError, Permission, ToolContext, ToolError, ToolResult, tool
from interlock.tools.schema import SchemaRuleError, check_schema_rules, field_errors, make_validator

MIN_OPTIONS = 2
MAX_OPTIONS = 10
MAX_OPTION_CHARS = 200
MAX_TEXT_CHARS = 2000
MAX_FORM_FIELDS = 20

FIELD_TYPES = ("string", "number", "integer", "boolean")
FORM_KEYS = frozenset({"type", "properties", "required", "title", "description"})
FIELD_KEYS = frozenset(
    {
        "type",
        "title",
        "description",
        "default",
        "enum",
        "minLength",
        "maxLength",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
    }
)
STRING_KEYS = frozenset({"enum", "minLength", "maxLength", "pattern", "format"})
NUMBER_KEYS = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
)

_TEXT = {"type": "string", "minLength": 1, "maxLength": MAX_TEXT_CHARS, "pattern": r"\S"}


def _answer_with_respond(args: dict[str, Any], ctx: ToolContext) -> NoReturn:
    """Approving a question runs this: there is no answer, so the call fails.

    Raises:
        ToolError: ``invalid_args`` always.
    """
    raise ToolError(
        "invalid_args",
        "This question is answered with the respond decision; it was approved without an answer.",
        hint="Ask the person again, or go on without their answer.",
    )


# -- ask.choice ------------------------------------------------------------------------------


@tool(
    name="ask.choice",
    title="Ask to choose",
    description=(
        f"Ask the person a question with {MIN_OPTIONS} to {MAX_OPTIONS} short options and wait "
        "for the choice. With multiple=true they may pick several. The result is the chosen "
        "option, or a JSON list of the chosen options."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "question": {**_TEXT, "description": "The question, one sentence."},
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
                "description": "The choices, each a short distinct phrase.",
            },
            "multiple": {
                "type": "boolean",
                "default": False,
                "description": "True when several options may be chosen.",
            },
        },
        "required": ["question", "options"],
        "additionalProperties": False,
    },
    permission=Permission.ASK,
)
def choice(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Not run for an answer (respond); approving without an answer fails."""
    return _answer_with_respond(args, ctx)


def check_choice_response(args: dict[str, Any], message: str) -> list[FieldError]:
    """Check a choice answer: one option (plain or a JSON string), or with ``multiple`` a JSON
    list of distinct options."""
    options = [o for o in args.get("options", []) if isinstance(o, str)]
    listed = ", ".join(json.dumps(o, ensure_ascii=False) for o in options)
    if args.get("multiple") is True:
        value = _json(message)
        if not isinstance(value, list):
            example = json.dumps(options[:1], ensure_ascii=False)
            message = f"The answer must be a JSON list of the chosen options, like {example}."
            return [FieldError([], message, "type")]
        errors = [
            FieldError([index], f"{json.dumps(item)} is not one of the options: {listed}.", "enum")
            for index, item in enumerate(value)
            if not isinstance(item, str) or item not in options
        ]
        if len({json.dumps(item) for item in value}) != len(value):
            errors.append(FieldError([], "Each option may be chosen only once.", "uniqueItems"))
        return errors
    decoded = _json(message)
    candidates = [message, message.strip(), decoded]
    if any(isinstance(c, str) and c in options for c in candidates):
        return []
    return [FieldError([], f"The answer must be one of the options: {listed}.", "enum")]


choice.check_response = check_choice_response


# -- ask.form --------------------------------------------------------------------------------


@tool(
    name="ask.form",
    title="Ask to fill in a form",
    description=(
        "Ask the person for a few values at once and wait for them. 'fields' is a flat JSON "
        'Schema object: {"type": "object", "properties": {"<name>": {"type": "string", '
        '"title": "..."}, ...}, "required": [...]}; each field is a string, number, integer '
        "or boolean, or a string with enum choices (no nested objects or arrays). The result "
        "is a JSON object of the values."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "title": {**_TEXT, "maxLength": MAX_OPTION_CHARS, "description": "The form's title."},
            "fields": {
                "type": "object",
                "description": "A flat JSON Schema object describing the fields.",
                "properties": {
                    "type": {"const": "object"},
                    "properties": {
                        "type": "object",
                        "minProperties": 1,
                        "maxProperties": MAX_FORM_FIELDS,
                        "additionalProperties": {"type": "object"},
                    },
                    "required": {
                        "type": "array",
                        "items": {"type": "string"},
                        "uniqueItems": True,
                    },
                },
                "required": ["type", "properties"],
            },
        },
        "required": ["title", "fields"],
        "additionalProperties": False,
    },
    permission=Permission.ASK,
)
def form(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Not run for an answer (respond); approving without an answer fails."""
    return _answer_with_respond(args, ctx)


def check_form_args(args: dict[str, Any]) -> list[FieldError]:
    """Check that ``fields`` is a flat form: scalar or string-enum fields, known ``required``.

    Errors have paths under ``["fields", ...]``; when the subset holds, ``fields`` must also
    pass the tool-schema rules (valid Draft 2020-12).
    """
    fields: dict[str, Any] = args["fields"]
    errors: list[FieldError] = []
    allowed = ", ".join(sorted(FORM_KEYS))
    for key in sorted(set(fields) - FORM_KEYS):
        message = f"'{key}' is not supported in a form (allowed: {allowed})."
        errors.append(FieldError(["fields", key], message, "additionalProperties"))
    properties: dict[str, Any] = fields["properties"]
    for name, schema in properties.items():
        errors.extend(_field_problems(name, schema))
    for index, name in enumerate(fields.get("required", [])):
        if name not in properties:
            message = f"'{name}' is not a field of the form."
            errors.append(FieldError(["fields", "required", index], message, "enum"))
    if not errors:
        try:
            check_schema_rules(fields, require_object_root=True)
        except SchemaRuleError as exc:
            errors.append(FieldError(["fields"], f"The form {exc}.", "schema"))
    return errors


def _field_problems(name: str, schema: dict[str, Any]) -> list[FieldError]:
    at: list[str | int] = ["fields", "properties", name]
    if not name.strip():
        return [FieldError(at, "A field name cannot be empty.", "minLength")]
    errors: list[FieldError] = []
    allowed = ", ".join(sorted(FIELD_KEYS))
    for key in sorted(set(schema) - FIELD_KEYS):
        message = f"'{key}' is not supported in a form field (allowed: {allowed})."
        errors.append(FieldError([*at, key], message, "additionalProperties"))
    kind = schema.get("type")
    if kind not in FIELD_TYPES:
        message = f"A form field's type must be one of {', '.join(FIELD_TYPES)}."
        return [*errors, FieldError([*at, "type"], message, "enum")]
    wrong = STRING_KEYS if kind != "string" else NUMBER_KEYS
    for key in sorted(wrong & set(schema)):
        message = f"'{key}' does not apply to a {kind} field."
        errors.append(FieldError([*at, key], message, "type"))
    if kind == "string" and "enum" in schema:
        enum = schema["enum"]
        if not isinstance(enum, list) or not enum or not all(isinstance(v, str) for v in enum):
            message = "enum must be a non-empty list of strings."
            errors.append(FieldError([*at, "enum"], message, "enum"))
        elif len(set(enum)) != len(enum):
            errors.append(FieldError([*at, "enum"], "enum values must be unique.", "uniqueItems"))
    pattern = schema.get("pattern")
    if kind == "string" and isinstance(pattern, str):
        try:
            re.compile(pattern)
        except re.error as exc:
            message = f"pattern is not a valid regular expression: {exc}."
            errors.append(FieldError([*at, "pattern"], message, "pattern"))
    if not errors and "default" in schema:
        bare = {k: v for k, v in schema.items() if k != "default"}
        try:
            valid = make_validator(bare).is_valid(schema["default"])
        except Exception:  # an invalid field schema; reported by the schema rules
            valid = True
        if not valid:
            message = "default does not fit the field."
            errors.append(FieldError([*at, "default"], message, "default"))
    return errors


form.check_args = check_form_args


def check_form_response(args: dict[str, Any], message: str) -> list[FieldError]:
    """Check a form answer: a JSON object valid against ``fields`` (no other keys)."""
    value = _json(message)
    if not isinstance(value, dict):
        return [FieldError([], "The answer must be a JSON object of the form's values.", "type")]
    schema = {**args.get("fields", {}), "additionalProperties": False}
    try:
        validator = make_validator(schema)
        return field_errors(validator, value)
    except Exception as exc:  # fields that were never valid (not checked by an old call)
        return [FieldError([], f"The form cannot be checked: {exc}.", "schema")]


form.check_response = check_form_response


# -- ask.confirm -----------------------------------------------------------------------------


@tool(
    name="ask.confirm",
    title="Ask to confirm",
    description=(
        "Ask the person a yes/no question about what you are about to do, stated in "
        "'summary', and wait. The result is 'yes' or 'no'."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "summary": {**_TEXT, "description": "What to confirm, in one or two sentences."}
        },
        "required": ["summary"],
        "additionalProperties": False,
    },
    permission=Permission.ASK,
)
def confirm(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Not run for an answer (respond); approving without an answer fails."""
    return _answer_with_respond(args, ctx)


def check_confirm_response(args: dict[str, Any], message: str) -> list[FieldError]:
    """Check a confirmation: ``yes`` or ``no`` (any case, or as a JSON string)."""
    decoded = _json(message)
    text = decoded if isinstance(decoded, str) else message
    if text.strip().lower() in ("yes", "no"):
        return []
    return [FieldError([], "The answer must be yes or no.", "enum")]


confirm.check_response = check_confirm_response


def _json(text: str) -> Any:
    """Decode ``text`` as JSON; None when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return None
