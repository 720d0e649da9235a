"""JSON Schema rules for tool arguments and results: the supported subset and validation.

Tool schemas are sent to model providers as function ``parameters`` and used by Interlock to
validate arguments (from the model, and from a person's ``edit`` decision) and result data.
Providers accept only part of JSON Schema, and differently, so Interlock accepts a documented
subset (:data:`SUPPORTED_SCHEMA_KEYWORDS`), checked once at registration by
:func:`check_schema_rules`. Validation always uses Draft 2020-12 with format checking
(:data:`FORMAT_CHECKER`), whose ``uri`` and ``email`` checks :func:`check_format_checkers`
proves active at start-up.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Iterator
from typing import Any, cast

from email_validator import EmailNotValidError, validate_email
from jsonschema import Draft202012Validator, FormatChecker  # type: ignore[import-untyped]
from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]
from pydantic import BaseModel
from referencing import Registry

from interlock.tools.base import FieldError

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
"""The one ``$schema`` value accepted (validation always uses Draft 2020-12)."""

SUPPORTED_SCHEMA_KEYWORDS: frozenset[str] = frozenset(
    {
        # Structure.
        "type",
        "properties",
        "required",
        "additionalProperties",
        "minProperties",
        "maxProperties",
        "items",
        "prefixItems",
        "minItems",
        "maxItems",
        "uniqueItems",
        # Values.
        "enum",
        "const",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "pattern",
        # Composition.
        "anyOf",
        "oneOf",
        "allOf",
        "not",
        # References (local only, see check_schema_rules) and identity.
        "$ref",
        "$defs",
        "$schema",
        "$id",
        # Annotations: no effect on validation.
        "title",
        "description",
        "default",
        "examples",
        "readOnly",
        "writeOnly",
        "deprecated",
        "$comment",
    }
)
"""JSON Schema keywords a tool schema may use, anywhere in the schema.

The subset is what OpenAI, Anthropic, Ollama and OpenAI-compatible servers commonly accept in
function ``parameters`` (their structured-output documentation lists the same core) plus
annotations that carry no validation meaning. Left out on purpose:

* ``nullable`` (OpenAPI 3.0, not JSON Schema: write ``"type": ["string", "null"]``),
  ``discriminator`` (OpenAPI; stripped from pydantic-derived schemas by :func:`model_schema`);
* ``if``/``then``/``else``, ``dependentRequired``, ``dependentSchemas``, ``patternProperties``,
  ``propertyNames``, ``unevaluatedProperties``, ``unevaluatedItems``, ``contains``,
  ``minContains``, ``maxContains``: rejected or ignored by several providers, so the model would
  not see the rule that Interlock then enforces;
* ``$anchor``, ``$dynamicRef``, ``$dynamicAnchor``, ``$vocabulary``, ``definitions``: only
  ``#/$defs/...`` JSON Pointer references are supported.

Rules on their use: ``$ref`` must be a local JSON Pointer (``#`` or ``#/...``) that resolves
inside the schema (no network retrieval, ever); ``$id`` is allowed only at the root (a nested
``$id`` would change what ``$ref`` points at); ``$schema``, if present, must be
:data:`DRAFT_2020_12`.
"""

MAX_SCHEMA_DEPTH = 10
"""Most schema levels allowed: the root is level 1 and every subschema (a property's schema,
``items``, an ``anyOf`` branch, a ``$defs`` entry...) is one level below its parent. Ten levels
is the nesting limit of OpenAI's structured outputs, the strictest provider."""

MAX_SCHEMA_CHARS = 20_000
"""Longest schema, in characters of compact JSON (``separators=(",", ":")``, non-ASCII kept).
Schemas are sent with every model call, so they cost tokens on every turn."""

MAX_MESSAGE_CHARS = 500
"""Longest :class:`FieldError` message; longer ones (which quote a large instance) are cut."""

_ANNOTATION_KEYWORDS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "readOnly",
        "writeOnly",
        "deprecated",
        "$comment",
    }
)

# Keywords whose value is one subschema, a list of subschemas, or a name -> subschema map.
_SCHEMA_VALUED = ("items", "additionalProperties", "not")
_SCHEMA_LIST_VALUED = ("prefixItems", "anyOf", "oneOf", "allOf")
_SCHEMA_MAP_VALUED = ("properties", "$defs")


class SchemaRuleError(ValueError):
    """A schema breaks one of Interlock's schema rules; ``str(exc)`` is the reason."""


# ---------------------------------------------------------------------------------------------
# Formats


def _check_email(instance: object) -> bool:
    """Format ``email`` (RFC 5321 mailbox, ASCII only), checked by ``email-validator``.

    jsonschema's own check only looks for an ``@``. Interlock needs the address to be usable,
    so the domain must look globally deliverable (a dotted public name, not ``localhost`` or a
    special-use name such as ``.test``); no DNS look-up is made.

    Raises:
        EmailNotValidError: When the address is not valid (turned into a format error).
    """
    if not isinstance(instance, str):
        return True
    validate_email(instance, check_deliverability=False, allow_smtputf8=False)
    return True


def _check_idn_email(instance: object) -> bool:
    """Format ``idn-email`` (RFC 6531): as :func:`_check_email`, non-ASCII characters allowed.

    Raises:
        EmailNotValidError: When the address is not valid (turned into a format error).
    """
    if not isinstance(instance, str):
        return True
    validate_email(instance, check_deliverability=False, allow_smtputf8=True)
    return True


def _build_format_checker() -> FormatChecker:
    checker = FormatChecker(formats=())
    # Start from every check jsonschema has for Draft 2020-12 (``uri`` needs ``rfc3987``), then
    # make the email formats strict.
    checker.checkers = dict(Draft202012Validator.FORMAT_CHECKER.checkers)
    checker.checks("email", raises=EmailNotValidError)(_check_email)
    checker.checks("idn-email", raises=EmailNotValidError)(_check_idn_email)
    return checker


FORMAT_CHECKER: FormatChecker = _build_format_checker()
"""The format checker used for every validation (Draft 2020-12 formats, strict email)."""


def check_format_checkers() -> None:
    """Prove at start-up that ``format`` is really checked.

    jsonschema silently skips a format whose optional library is missing, which would let
    ``"not a url"`` through a ``uri`` field. This runs known-bad values through
    :data:`FORMAT_CHECKER`; it is called by :class:`interlock.tools.ToolRegistry`.

    Raises:
        RuntimeError: When ``uri`` or ``email`` accepts a bad value; install the
            ``jsonschema[format]`` extra, ``rfc3987`` and ``email-validator``.
    """
    probes = [("uri", "not a url"), ("email", "nobody"), ("email", "nobody@")]
    missing = [
        f"{fmt} (accepted {value!r})"
        for fmt, value in probes
        if Draft202012Validator({"format": fmt}, format_checker=FORMAT_CHECKER).is_valid(value)
    ]
    if missing:
        raise RuntimeError(
            "JSON Schema format checks are not active: "
            + ", ".join(missing)
            + ". Install jsonschema[format], rfc3987 and email-validator."
        )


def make_validator(schema: dict[str, Any] | bool) -> Any:
    """Return a Draft 2020-12 validator for ``schema`` with :data:`FORMAT_CHECKER`.

    References resolve inside the schema only: the validator gets an empty ``referencing``
    registry, so a remote ``$ref`` fails instead of being fetched.

    Args:
        schema: A schema already accepted by :func:`check_schema_rules` (or any valid schema).

    Returns:
        A ``jsonschema.Draft202012Validator`` (typed ``Any``: jsonschema ships no types).
    """
    return Draft202012Validator(schema, format_checker=FORMAT_CHECKER, registry=Registry())


# ---------------------------------------------------------------------------------------------
# Registration-time schema rules


def _iter_subschemas(
    schema: Any, pointer: str = "", depth: int = 1
) -> Iterator[tuple[str, Any, int]]:
    """Yield ``(json_pointer, subschema, depth)`` for ``schema`` and every subschema in it.

    Only schema positions are walked (``properties`` values, ``items``...), never values such
    as ``enum``, ``const`` or ``default``, so a property named ``nullable`` is not a keyword.
    """
    yield pointer or "/", schema, depth
    if not isinstance(schema, dict):
        return
    for key in _SCHEMA_VALUED:
        if key in schema:
            yield from _iter_subschemas(schema[key], f"{pointer}/{key}", depth + 1)
    for key in _SCHEMA_LIST_VALUED:
        value = schema.get(key)
        if isinstance(value, list):
            for index, sub in enumerate(value):
                yield from _iter_subschemas(sub, f"{pointer}/{key}/{index}", depth + 1)
    for key in _SCHEMA_MAP_VALUED:
        value = schema.get(key)
        if isinstance(value, dict):
            for name, sub in value.items():
                yield from _iter_subschemas(sub, f"{pointer}/{key}/{_escape(name)}", depth + 1)


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _resolve_pointer(root: Any, ref: str) -> bool:
    """Return True when the local reference ``ref`` (``#`` or ``#/a/b``) exists in ``root``."""
    node = root
    for raw in ref[2:].split("/") if ref != "#" else []:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return False
    return isinstance(node, dict | bool)


def schema_json_size(schema: Any) -> int:
    """Return the length of ``schema`` as compact JSON, in characters.

    Raises:
        SchemaRuleError: When the schema is not JSON (cycles, non-JSON values, NaN) or nests so
            deeply that encoding it overflows the recursion limit.
    """
    try:
        text = json.dumps(schema, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise SchemaRuleError(f"is not JSON-serializable ({exc})") from None
    except RecursionError:
        raise SchemaRuleError(f"nests deeper than {MAX_SCHEMA_DEPTH} levels") from None
    return len(text)


def check_schema_rules(schema: Any, *, require_object_root: bool) -> None:
    """Check one tool schema against Interlock's rules, first failure first.

    Rules, in order: a JSON object; at most :data:`MAX_SCHEMA_CHARS` characters; valid Draft
    2020-12 (``Draft202012Validator.check_schema``); only :data:`SUPPORTED_SCHEMA_KEYWORDS`;
    ``$schema``/``$id``/``$ref`` as documented there; at most :data:`MAX_SCHEMA_DEPTH` levels;
    and, for argument schemas, ``"type": "object"`` at the root (providers' function
    ``parameters`` must describe an object of named arguments).

    Args:
        schema: The schema to check.
        require_object_root: True for input schemas.

    Raises:
        SchemaRuleError: With a reason such as ``"uses unsupported keyword 'if' at /"``.
    """
    if not isinstance(schema, dict):
        raise SchemaRuleError(f"must be a JSON object, got {type(schema).__name__}")
    size = schema_json_size(schema)
    if size > MAX_SCHEMA_CHARS:
        raise SchemaRuleError(
            f"is {size:,} characters of JSON, more than the {MAX_SCHEMA_CHARS:,} allowed"
        )
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "/" + "/".join(_escape(str(p)) for p in exc.absolute_path)
        raise SchemaRuleError(
            f"is not a valid Draft 2020-12 schema at {where}: {_cut(exc.message)}"
        ) from None
    except RecursionError:
        raise SchemaRuleError(f"nests deeper than {MAX_SCHEMA_DEPTH} levels") from None
    if "$schema" in schema and schema["$schema"] != DRAFT_2020_12:
        raise SchemaRuleError(f"declares $schema {schema['$schema']!r}; only {DRAFT_2020_12}")
    for pointer, sub, depth in _iter_subschemas(schema):
        if depth > MAX_SCHEMA_DEPTH:
            raise SchemaRuleError(f"nests deeper than {MAX_SCHEMA_DEPTH} levels (at {pointer})")
        if not isinstance(sub, dict):
            continue  # a boolean schema
        unsupported = sorted(set(sub) - SUPPORTED_SCHEMA_KEYWORDS)
        if unsupported:
            names = ", ".join(repr(k) for k in unsupported)
            raise SchemaRuleError(f"uses unsupported keyword {names} at {pointer}")
        if pointer != "/" and ("$id" in sub or "$schema" in sub):
            raise SchemaRuleError(f"uses $id or $schema below the root (at {pointer})")
        ref = sub.get("$ref")
        if ref is not None:
            if not (ref == "#" or ref.startswith("#/")):
                raise SchemaRuleError(
                    f"uses $ref {ref!r} at {pointer}; only local '#/...' references are supported"
                )
            if not _resolve_pointer(schema, ref):
                raise SchemaRuleError(f"has $ref {ref!r} at {pointer} that points at nothing")
    if require_object_root and schema.get("type") != "object":
        raise SchemaRuleError('must have "type": "object" at the root')


# ---------------------------------------------------------------------------------------------
# Pydantic models


def model_schema(model: type[BaseModel]) -> dict[str, Any]:
    """Return the JSON Schema of a pydantic model, with every ``$ref`` inlined.

    ``model.model_json_schema()`` puts nested models under ``$defs``; they are substituted in
    place (a ``$ref`` with annotation siblings such as ``description`` is merged, siblings
    winning; with other overlapping siblings the target goes under ``allOf``) and ``$defs``
    is dropped. Pydantic's OpenAPI ``discriminator`` annotations are removed (the ``oneOf``
    they annotate still validates).

    Args:
        model: A ``pydantic.BaseModel`` subclass.

    Returns:
        A new schema dict with no ``$ref`` and no ``$defs``.

    Raises:
        SchemaRuleError: When the model is recursive (it cannot be inlined) or pydantic cannot
            produce a JSON Schema for it.
    """
    try:
        raw = model.model_json_schema()
    except Exception as exc:  # pydantic raises several types for unsupported field types
        raise SchemaRuleError(
            f"cannot be derived from {model.__name__} ({type(exc).__name__}: {exc})"
        ) from None
    defs = raw.pop("$defs", {})
    return cast(dict[str, Any], _inline(raw, defs, ()))


def _inline(node: Any, defs: dict[str, Any], stack: tuple[str, ...]) -> Any:
    """Return a copy of the schema ``node`` with local ``#/$defs/...`` references substituted."""
    if not isinstance(node, dict):
        return copy.deepcopy(node)  # a boolean schema
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        name = ref.removeprefix("#/$defs/").replace("~1", "/").replace("~0", "~")
        if name in stack:
            raise SchemaRuleError(
                f"cannot be inlined: model {name!r} refers to itself "
                f"({' -> '.join((*stack, name))}); write input_schema with a '#' $ref instead"
            )
        if name not in defs:
            raise SchemaRuleError(f"has $ref {ref!r} with no matching $defs entry")
        target = _inline(defs[name], defs, (*stack, name))
        siblings = _inline({k: v for k, v in node.items() if k != "$ref"}, defs, stack)
        if (set(siblings) & set(target)) - _ANNOTATION_KEYWORDS:
            return {**siblings, "allOf": [target]}
        return {**target, **siblings}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "discriminator":
            continue
        if key in _SCHEMA_VALUED:
            out[key] = _inline(value, defs, stack)
        elif key in _SCHEMA_LIST_VALUED and isinstance(value, list):
            out[key] = [_inline(sub, defs, stack) for sub in value]
        elif key in _SCHEMA_MAP_VALUED and isinstance(value, dict):
            out[key] = {name: _inline(sub, defs, stack) for name, sub in value.items()}
        else:
            out[key] = copy.deepcopy(value)
    return out


# ---------------------------------------------------------------------------------------------
# Validation


def _cut(message: str) -> str:
    if len(message) <= MAX_MESSAGE_CHARS:
        return message
    return message[: MAX_MESSAGE_CHARS - 1] + "…"


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
            out.append(FieldError(path=path, message=_cut(message), rule=rule))

    for error in validator.iter_errors(instance):
        path: list[str | int] = list(error.absolute_path)
        rule = str(error.validator)
        if rule == "required" and isinstance(error.instance, dict):
            for name in error.validator_value:
                if name not in error.instance:
                    add([*path, name], f"Missing required property {name!r}.", rule)
        elif (
            rule == "additionalProperties"
            and error.validator_value is False
            and isinstance(error.instance, dict)
        ):
            allowed = error.schema.get("properties", {})
            for name in error.instance:
                if name not in allowed:
                    hint = ", ".join(sorted(allowed)) or "none"
                    add([*path, name], f"Unexpected property {name!r} (allowed: {hint}).", rule)
        else:
            add(path, error.message, rule)
    return sorted(out, key=_sort_key)


def is_finite_number(value: object) -> bool:
    """True for an ``int`` or ``float`` (not ``bool``) that is neither NaN nor infinite."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
