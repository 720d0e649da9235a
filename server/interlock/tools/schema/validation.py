"""Validation of tool arguments and results: validators and person-readable field errors.

:func:`make_validator` builds a Draft 2020-12 validator with :data:`FORMAT_CHECKER
<interlock.tools.schema.formats.FORMAT_CHECKER>` that never fetches a remote ``$ref``;
:func:`field_errors` turns its failures into sorted :class:`~interlock.tools.base.FieldError`
objects with messages a person can act on ("Must not be empty.").
"""

from __future__ import annotations

import json
import math
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from referencing import Registry

from interlock.text import CONTROL_CHARACTER, control_characters
from interlock.tools.base import FieldError
from interlock.tools.schema.formats import FORMAT_CHECKER
from interlock.tools.schema.labels import field_label

MAX_MESSAGE_CHARS = 500
"""Longest :class:`FieldError` message; longer ones (which quote a large instance) are cut."""


def make_validator(schema: dict[str, Any] | bool) -> Any:
    """Return a Draft 2020-12 validator for ``schema`` with :data:`~.formats.FORMAT_CHECKER`.

    References resolve inside the schema only: the validator gets an empty ``referencing``
    registry, so a remote ``$ref`` fails instead of being fetched.

    Args:
        schema: A schema already accepted by :func:`~.rules.check_schema_rules` (or any valid
            schema).

    Returns:
        A ``jsonschema.Draft202012Validator`` (typed ``Any``: jsonschema ships no types).
    """
    return Draft202012Validator(schema, format_checker=FORMAT_CHECKER, registry=Registry())


def cut_message(message: str) -> str:
    """Return ``message``, cut to :data:`MAX_MESSAGE_CHARS` characters (ending in ``…``)."""
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    return message[: MAX_MESSAGE_CHARS - 1] + "…"


def control_character_errors(args: Any) -> list[FieldError]:
    """Return one error per string of ``args`` (keys included) holding a C0 control character
    other than tab and line breaks (Escape, Bell...), whichever schema the tool has.

    A card shows such a character as nothing at all, so the person would approve text that is
    not what they read; models get the error like any other (rule ``control_character``), and
    a person's edit is refused with it.
    """
    return [
        FieldError(
            path=path,
            message=f"Contains a control character ({code}), which is not text: remove it.",
            rule=CONTROL_CHARACTER,
        )
        for path, code in control_characters(args)
    ]


def _sort_key(error: FieldError) -> tuple[Any, ...]:
    path = tuple((0, p, "") if isinstance(p, int) else (1, 0, p) for p in error.path)
    return (path, error.rule, error.message)


def field_errors(validator: Any, instance: Any) -> list[FieldError]:
    """Validate ``instance`` and return every failure as a :class:`FieldError`, sorted by path.

    ``required`` failures get one error per missing property, with the property's name at the
    end of the path; ``additionalProperties: false`` failures get one error per unexpected
    property, likewise. Other failures keep jsonschema's message (cut to
    :data:`MAX_MESSAGE_CHARS`) and the path of the failing value.

    Args:
        validator: From :func:`make_validator`.
        instance: Any JSON value.

    Returns:
        Errors sorted by path, then rule; ``[]`` when ``instance`` is valid.
    """
    seen: set[tuple[tuple[str | int, ...], str, str]] = set()
    out: list[FieldError] = []

    def add(path: list[str | int], message: str, rule: str) -> None:
        key = (tuple(path), rule, message)
        if key not in seen:
            seen.add(key)
            out.append(FieldError(path=path, message=cut_message(message), rule=rule))

    for error in validator.iter_errors(instance):
        path: list[str | int] = list(error.absolute_path)
        rule = str(error.validator)
        if rule == "required" and isinstance(error.instance, dict):
            for name in error.validator_value:
                if name not in error.instance:
                    add([*path, name], "Is required.", rule)
        elif (
            rule == "additionalProperties"
            and error.validator_value is False
            and isinstance(error.instance, dict)
        ):
            allowed = error.schema.get("properties", {})
            for name in error.instance:
                if name not in allowed:
                    add([*path, name], _not_a_field(error.schema), rule)
        else:
            add(path, _friendly_message(rule, error.validator_value, error.message), rule)
    return sorted(out, key=_sort_key)


_TYPE_WORDS = {
    "integer": "a whole number",
    "number": "a number",
    "string": "text",
    "boolean": "yes or no",
    "array": "a list",
    "object": "a group of fields",
    "null": "left empty",
}
"""JSON Schema's type names in a person's words ("Must be a whole number.")."""

_FORMAT_WORDS = {
    "date-time": "date and time",
    "uri": "web address",
    "iri": "web address",
    "email": "email address",
    "idn-email": "email address",
    "hostname": "host name",
    "ipv4": "IPv4 address",
    "ipv6": "IPv6 address",
    "uuid": "UUID",
}
"""JSON Schema's format names in a person's words ("Must be a valid web address.")."""


def _not_a_field(schema: Any) -> str:
    """The message for a key ``schema`` (an object's) does not declare, naming those it does."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    names = sorted(props) if isinstance(props, dict) else []
    if not names:
        return "Is not a field here: nothing else is asked for."
    labels = ", ".join(field_label(schema, [name]) for name in names)
    return f"Is not a field here (the fields are: {labels})."


_BLANK_PATTERNS = frozenset({r"\S", r".*\S.*", r"^.*\S.*$", r"[^\s]"})


def _friendly_message(rule: str, value: Any, default: str) -> str:
    """Return a sentence a person can act on for common rules, else jsonschema's message."""
    plural = "" if value == 1 else "s"
    if rule == "type":
        names = value if isinstance(value, list) else [value]
        return "Must be " + " or ".join(_TYPE_WORDS.get(str(n), str(n)) for n in names) + "."
    if rule == "minLength":
        return "Must not be empty." if value == 1 else f"Must have at least {value} characters."
    if rule == "maxLength":
        return f"Must have at most {value} character{plural}."
    if rule == "pattern":
        return (
            "Must not be blank." if value in _BLANK_PATTERNS else f"Must match the pattern {value}."
        )
    if rule in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        word = {
            "minimum": "at least",
            "exclusiveMinimum": "more than",
            "maximum": "at most",
            "exclusiveMaximum": "less than",
        }[rule]
        return f"Must be {word} {value}."
    if rule == "enum" and isinstance(value, list):
        return "Must be one of: " + ", ".join(json.dumps(v) for v in value) + "."
    if rule == "format":
        return f"Must be a valid {_FORMAT_WORDS.get(str(value), value)}."
    if rule == "minItems":
        return f"Must have at least {value} item{plural}."
    if rule == "maxItems":
        return f"Must have at most {value} item{plural}."
    return default


def is_finite_number(value: object) -> bool:
    """True for an ``int`` or ``float`` (not ``bool``) that is neither NaN nor infinite."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
