"""Small checks shared by the declarative tool builders, and the error they raise.

Every check raises :class:`DeclarativeToolError` with a path into the spec, so a broken spec is
reported at its line when its skill loads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from interlock.adapters.templating import (
    Template,
    TemplateSyntaxError,
    ValueTemplate,
    parse_template,
    parse_value,
)

SpecPath = list[str | int]


class DeclarativeToolError(ValueError):
    """A declarative tool spec that cannot be built.

    Args:
        message: What is wrong, as an English phrase.
        path: Keys and indexes from the spec's root to the offending value, e.g.
            ``["request", "params", "q"]``; for a missing key, the mapping that lacks it;
            ``[]`` for the spec itself.

    Attributes:
        message: As given.
        path: As given.
    """

    def __init__(self, message: str, path: Sequence[str | int]) -> None:
        self.message = message
        self.path: SpecPath = list(path)
        where = ".".join(str(p) for p in path)
        super().__init__(f"{where}: {message}" if where else message)


def known_keys(raw: dict[str, Any], allowed: frozenset[str], at: SpecPath, what: str) -> None:
    """Refuse the first key of ``raw`` not in ``allowed`` (``what`` names the mapping)."""
    for key in raw:
        if key not in allowed:
            raise DeclarativeToolError(
                f"unknown key {key!r} ({what} takes: {listed(allowed)})", [*at, key]
            )


def require_string(raw: dict[str, Any], key: str, at: SpecPath) -> str:
    """Return ``raw[key]``, a required non-blank string."""
    if key not in raw:
        raise DeclarativeToolError(f"missing required key {key!r}", at)
    value = raw[key]
    if not isinstance(value, str) or not value.strip():
        raise DeclarativeToolError(f"{key} must be a non-empty string", [*at, key])
    return value


def flag(raw: dict[str, Any], key: str, default: bool) -> bool:
    """Return ``raw[key]`` (``default`` when absent), which must be true or false."""
    value = raw.get(key, default)
    if not isinstance(value, bool):
        raise DeclarativeToolError(f"{key} must be true or false, got {value!r}", [key])
    return value


def sub_mapping(raw: dict[str, Any], key: str, at: SpecPath, *, required: bool) -> dict[str, Any]:
    """Return ``raw[key]``, a mapping (``{}`` when absent and not required)."""
    if key not in raw:
        if required:
            raise DeclarativeToolError(f"missing required key {key!r}", at)
        return {}
    value = raw[key]
    if not isinstance(value, dict):
        raise DeclarativeToolError(f"{key} must be a mapping, got {type_name(value)}", [*at, key])
    return value


def listed(values: Any) -> str:
    """``a, b, c``: the values sorted, for messages."""
    return ", ".join(sorted(values))


def type_name(value: Any) -> str:
    """The JSON-ish type name of ``value`` for messages (``null`` for None)."""
    return "null" if value is None else type(value).__name__


# -- templates -------------------------------------------------------------------------------


def checked_value(value: Any, arguments: set[str], at: SpecPath) -> ValueTemplate:
    """Parse a value template whose placeholders name declared arguments only."""
    try:
        parsed = parse_value(value, [])
    except TemplateSyntaxError as exc:
        raise DeclarativeToolError(exc.message, [*at, *exc.path]) from None
    for path, placeholder in parsed.placeholders():
        check_argument(placeholder.key, arguments, [*at, *path])
    return parsed


def checked_template(source: str, arguments: set[str], at: SpecPath) -> Template:
    """Parse a text template whose placeholders name declared arguments only."""
    try:
        template = parse_template(source)
    except TemplateSyntaxError as exc:
        raise DeclarativeToolError(exc.message, at) from None
    for placeholder in template.placeholders:
        check_argument(placeholder.key, arguments, at)
    return template


def check_argument(key: str, arguments: set[str], at: SpecPath) -> None:
    """Refuse a placeholder naming an argument ``input_schema.properties`` does not declare."""
    if key not in arguments:
        shown = "{query}" if key == "query" else f"{{arguments.{key}}}"
        declared = ", ".join(sorted(arguments)) or "none"
        raise DeclarativeToolError(
            f"placeholder {shown} names argument {key!r}, which input_schema.properties "
            f"does not declare (declared: {declared})",
            at,
        )
