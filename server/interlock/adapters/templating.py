"""Placeholder templates of declarative tools: ``{query}``, ``{arguments.<key>}``, ``{{``/``}}``.

The language is the one described in docs/skills-and-employees.md ("Declarative tools"):

* ``{query}`` is the argument ``query`` (``arguments["query"]``);
* ``{arguments.<key>}`` is the top-level argument ``<key>`` (the rest of the placeholder is the
  key, taken literally, so ``{arguments.a.b}`` is the argument named ``a.b``);
* ``{{`` and ``}}`` are a literal ``{`` and ``}``; any other brace is a syntax error.

A string that is exactly one placeholder is a *whole-value* placeholder: in JSON positions
(query parameters, request bodies) it keeps the argument's JSON type. Elsewhere values are
rendered as text (:func:`text_of`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Final

MISSING: Final = object()
"""Marks an argument that was not given (distinct from JSON ``null``)."""


class TemplateSyntaxError(ValueError):
    """A template that cannot be parsed.

    Args:
        message: Why, as an English phrase.
        path: Where, inside the value given to :func:`parse_value` (``[]``: the value itself).
    """

    def __init__(self, message: str, path: list[str | int] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path: list[str | int] = list(path or [])


@dataclass(frozen=True)
class Placeholder:
    """One placeholder: ``key`` is the argument it names (``query`` for ``{query}``)."""

    key: str


@dataclass(frozen=True)
class Template:
    """A parsed template string.

    Attributes:
        parts: Literal text and placeholders, in order (adjacent literals are merged).
    """

    parts: tuple[str | Placeholder, ...]

    @property
    def placeholders(self) -> list[Placeholder]:
        """The placeholders, in order."""
        return [p for p in self.parts if isinstance(p, Placeholder)]

    @property
    def whole(self) -> Placeholder | None:
        """The placeholder when the template is exactly one placeholder, else None."""
        if len(self.parts) == 1 and isinstance(self.parts[0], Placeholder):
            return self.parts[0]
        return None

    def value(self, arguments: dict[str, Any]) -> Any:
        """Render as a JSON value: a whole-value placeholder keeps its type (or is MISSING).

        Any other template renders as text, with missing and null arguments as ``""``.
        """
        whole = self.whole
        if whole is not None:
            return arguments.get(whole.key, MISSING)
        return self.text(arguments)

    def text(self, arguments: dict[str, Any]) -> str:
        """Render as text (see :func:`text_of`); missing and null arguments become ``""``."""
        out: list[str] = []
        for part in self.parts:
            out.append(text_of(arguments.get(part.key)) if isinstance(part, Placeholder) else part)
        return "".join(out)


def parse_template(source: str) -> Template:
    """Parse ``source`` into a :class:`Template`.

    Args:
        source: The template text.

    Returns:
        The parsed template.

    Raises:
        TemplateSyntaxError: On an unclosed ``{``, a lone ``}``, a brace inside a placeholder,
            or a placeholder other than ``{query}`` and ``{arguments.<key>}`` (key non-empty).
    """
    parts: list[str | Placeholder] = []
    literal: list[str] = []
    i = 0
    while i < len(source):
        char = source[i]
        if char in "{}" and source[i : i + 2] in ("{{", "}}"):
            literal.append(char)
            i += 2
        elif char == "}":
            raise TemplateSyntaxError(f"single '}}' at character {i + 1}; write '}}}}' for a brace")
        elif char == "{":
            end = source.find("}", i + 1)
            if end < 0:
                raise TemplateSyntaxError(f"'{{' at character {i + 1} is never closed")
            inner = source[i + 1 : end]
            if "{" in inner:
                raise TemplateSyntaxError(f"'{{' inside a placeholder at character {i + 1}")
            if literal:
                parts.append("".join(literal))
                literal = []
            parts.append(_placeholder(inner))
            i = end + 1
        else:
            literal.append(char)
            i += 1
    if literal:
        parts.append("".join(literal))
    return Template(tuple(parts))


def _placeholder(inner: str) -> Placeholder:
    if inner == "query":
        return Placeholder("query")
    if inner.startswith("arguments.") and len(inner) > len("arguments."):
        return Placeholder(inner.removeprefix("arguments."))
    raise TemplateSyntaxError(
        f"unknown placeholder {{{inner}}}; use {{query}} or {{arguments.<name>}} "
        "(write {{ and }} for literal braces)"
    )


def text_of(value: Any) -> str:
    """Render an argument as text: strings as they are, null and missing as ``""``, any other
    JSON value as compact JSON (``true``, ``3``, ``["a","b"]``), non-ASCII kept."""
    if value is None or value is MISSING:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


@dataclass(frozen=True)
class ValueTemplate:
    """A JSON value whose strings are templates (query parameter values, request bodies).

    Attributes:
        node: A :class:`Template` (from a string), a ``dict[str, ValueTemplate]``, a
            ``list[ValueTemplate]``, or a JSON scalar (``None``, bool, int, float).
    """

    node: Any

    def render(self, arguments: dict[str, Any]) -> Any:
        """Fill the placeholders; MISSING when the whole value is a missing argument.

        Object members and list items whose value is MISSING are left out; JSON ``null`` (an
        argument given as null, or a literal null) is kept.
        """
        node = self.node
        if isinstance(node, Template):
            return node.value(arguments)
        if isinstance(node, dict):
            members = {k: v.render(arguments) for k, v in node.items()}
            return {k: v for k, v in members.items() if v is not MISSING}
        if isinstance(node, list):
            items = [v.render(arguments) for v in node]
            return [v for v in items if v is not MISSING]
        return node

    def placeholders(self) -> list[tuple[list[str | int], Placeholder]]:
        """Every placeholder with its path inside the value (``[]`` for the value itself)."""
        node = self.node
        if isinstance(node, Template):
            return [([], p) for p in node.placeholders]
        found: list[tuple[list[str | int], Placeholder]] = []
        if isinstance(node, dict | list):
            pairs = node.items() if isinstance(node, dict) else enumerate(node)
            for key, sub in pairs:
                found.extend(([key, *path], p) for path, p in sub.placeholders())
        return found


def parse_value(value: Any, path: list[str | int]) -> ValueTemplate:
    """Parse a JSON value whose strings are templates.

    Args:
        value: A JSON value from the spec.
        path: Where ``value`` is, for errors.

    Returns:
        The parsed value.

    Raises:
        TemplateSyntaxError: With ``path`` set to where the problem is, on a bad template or
            a non-JSON value (object keys must be strings; floats must be finite).
    """
    if isinstance(value, str):
        try:
            return ValueTemplate(parse_template(value))
        except TemplateSyntaxError as exc:
            raise TemplateSyntaxError(exc.message, path) from None
    if isinstance(value, dict):
        out: dict[str, ValueTemplate] = {}
        for key, sub in value.items():
            if not isinstance(key, str):
                raise TemplateSyntaxError(f"object keys must be strings, got {key!r}", path)
            out[key] = parse_value(sub, [*path, key])
        return ValueTemplate(out)
    if isinstance(value, list):
        return ValueTemplate([parse_value(sub, [*path, i]) for i, sub in enumerate(value)])
    if (
        value is None
        or isinstance(value, bool | int)
        or (isinstance(value, float) and math.isfinite(value))
    ):
        return ValueTemplate(value)
    raise TemplateSyntaxError(f"{type(value).__name__} is not a JSON value", path)
