"""Tool schemas for OpenAI's strict tool calling, and model arguments read back from them.

With ``"strict": true`` on a function, OpenAI (and OpenAI-compatible servers that copy it)
constrains the model's arguments to the schema, but accepts only a subset of JSON Schema and
answers HTTP 400 to anything else (OpenAI's guide "Structured Outputs", section "Supported
schemas"). :func:`strict_form` rewrites a tool's input schema into that subset:

* every ``$ref`` is inlined and every ``allOf`` merged into one schema (neither is sent);
* every object is closed (``additionalProperties: false``) and lists all its properties in
  ``required``; a property that was optional becomes nullable (``"type": ["integer",
  "null"]``, or ``anyOf`` with ``{"type": "null"}``), so the model sends ``null`` for
  "absent";
* ``oneOf`` becomes ``anyOf``, ``const`` a one-value ``enum``;
* keywords outside the subset that only narrow values (``minLength``, ``maxLength``,
  ``uniqueItems``, ``minProperties``, ``maxProperties``, formats OpenAI does not list) and
  annotations other than ``description`` are left out: Interlock still enforces them, because
  arguments are always validated against the tool's original schema.

A schema that cannot be expressed (``not``, ``prefixItems``, a recursive ``$ref``, an object
with no declared properties or with schema-valued ``additionalProperties``, a value of any
type, conflicting ``allOf`` branches, a root that is not one plain object, or more than
:data:`STRICT_MAX_DEPTH` levels) gets no strict form: that tool is sent without ``strict``.

:func:`absent_for_nulls` turns the ``null`` of such a nullable-for-strict property back into
an absent key before Interlock validates the arguments with the original schema.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
"""String formats OpenAI's strict mode accepts (other formats are left out of the strict form)."""

STRICT_KEPT_KEYWORDS = frozenset(
    {
        "description",
        "pattern",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
    }
)
"""Keywords copied as they are into the strict form (besides the structural ones it writes:
``type``, ``properties``, ``required``, ``additionalProperties``, ``items``, ``enum``,
``anyOf``, ``format``)."""

STRICT_MAX_DEPTH = 10
"""Most object/array nesting levels in a strict schema (OpenAI's limit)."""

MAX_INLINED_NODES = 2_000
"""Most schema nodes once ``$ref`` s are inlined (references can multiply them)."""

_JSON_TYPES: dict[str, tuple[type, ...]] = {
    "null": (type(None),),
    "boolean": (bool,),
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "number": (int, float),
    "integer": (int,),
}
_UNEXPRESSIBLE = ("not", "prefixItems")
_ANNOTATIONS = ("description", "title", "default", "examples", "$comment")


@dataclass(frozen=True)
class StrictForm:
    """A tool's schema as sent with strict tool calling on.

    Attributes:
        parameters: The strict-valid schema, or None when the tool is sent without strict.
        reason: Why there is no strict form (English phrase), None when there is one.
    """

    parameters: dict[str, Any] | None
    reason: str | None = None


class _NotStrict(Exception):
    """The schema cannot be expressed in strict mode; ``str(exc)`` says why."""


def strict_form(schema: dict[str, Any]) -> StrictForm:
    """Rewrite a tool's input schema for OpenAI's strict mode (rules in the module docstring).

    Args:
        schema: A registered tool's input schema (Interlock's subset; not modified).

    Returns:
        The strict form, or one with ``parameters=None`` and the reason.
    """
    try:
        resolved = _resolved(schema)
        if "anyOf" in resolved or resolved.get("type") != "object":
            raise _NotStrict("the root must be one object, not a choice of schemas")
        parameters = _strict(resolved, depth=1)
    except _NotStrict as exc:
        return StrictForm(None, str(exc))
    return StrictForm(parameters)


def absent_for_nulls(schema: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """Drop the ``null`` values a strict-mode model sends for properties it may leave out.

    A key is dropped when its value is ``null``, the original schema does not require it,
    and its own schema does not accept ``null``; nested objects and array items are walked
    the same way. Below an ``anyOf``/``oneOf`` the walk follows the one branch whose type
    admits the value, and stops when none or several do.

    Args:
        schema: The tool's original input schema.
        args: Arguments as the model sent them (not modified).

    Returns:
        A new dict, ready for validation against ``schema``.
    """
    try:
        resolved = _resolved(schema)
    except _NotStrict:
        return copy.deepcopy(args)
    result = _drop_nulls(resolved, args)
    return result if isinstance(result, dict) else copy.deepcopy(args)


# -- resolving $ref and allOf -----------------------------------------------------------------


def _resolve(schema: Any, root: Any, stack: tuple[str, ...], budget: list[int]) -> dict[str, Any]:
    """Return ``schema`` with every local ``$ref`` inlined and every ``allOf`` merged.

    ``budget`` holds how many more schema nodes may be produced (inlining can multiply them).

    Raises:
        _NotStrict: A boolean schema, a recursive ``$ref``, ``allOf`` branches that disagree
            on a keyword, or more than :data:`MAX_INLINED_NODES` nodes.
    """
    budget[0] -= 1
    if budget[0] < 0:
        raise _NotStrict(f"it has more than {MAX_INLINED_NODES} schemas once $refs are inlined")
    if not isinstance(schema, dict):
        raise _NotStrict("a boolean schema (true/false) has no strict form")
    node = dict(schema)
    parts: list[dict[str, Any]] = []
    ref = node.pop("$ref", None)
    if isinstance(ref, str):
        if ref in stack:
            raise _NotStrict(f"$ref {ref!r} refers to itself")
        parts.append(_resolve(_target(root, ref), root, (*stack, ref), budget))
    for branch in node.pop("allOf", None) or []:
        parts.append(_resolve(branch, root, stack, budget))
    node.pop("$defs", None)
    merged: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            merged[key] = {n: _resolve(sub, root, stack, budget) for n, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            merged[key] = _resolve(value, root, stack, budget)
        elif key in ("anyOf", "oneOf") and isinstance(value, list):
            merged[key] = [_resolve(sub, root, stack, budget) for sub in value]
        else:
            merged[key] = copy.deepcopy(value)
    for part in parts:
        merged = _merge(merged, part)
    return merged


def _resolved(schema: dict[str, Any]) -> dict[str, Any]:
    return _resolve(schema, schema, (), [MAX_INLINED_NODES])


def _target(root: Any, ref: str) -> Any:
    node = root
    for raw in ref[2:].split("/") if ref != "#" else []:
        token = raw.replace("~1", "/").replace("~0", "~")
        node = node[int(token)] if isinstance(node, list) else node[token]
    return node


def _merge(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """Merge two resolved schemas that must both hold (an ``allOf``); ``left`` annotates."""
    out = dict(left)
    for key, value in right.items():
        if key not in out:
            out[key] = value
        elif key in _ANNOTATIONS:
            continue  # the referring schema's annotation wins
        elif key == "properties":
            props = dict(out[key])
            for name, sub in value.items():
                props[name] = _merge(props[name], sub) if name in props else sub
            out[key] = props
        elif key == "required":
            out[key] = list(dict.fromkeys([*out[key], *value]))
        elif key == "additionalProperties" and (out[key] is False or value is False):
            out[key] = False
        elif out[key] != value:
            raise _NotStrict(f"allOf branches disagree on {key!r}")
    return out


# -- writing the strict form ------------------------------------------------------------------


def _strict(node: dict[str, Any], depth: int) -> dict[str, Any]:
    if depth > STRICT_MAX_DEPTH:
        raise _NotStrict(f"it nests deeper than {STRICT_MAX_DEPTH} levels")
    for key in _UNEXPRESSIBLE:
        if key in node:
            raise _NotStrict(f"{key!r} has no strict form")
    out: dict[str, Any] = {}
    if "description" in node:
        out["description"] = node["description"]
    branches = node.get("anyOf", node.get("oneOf"))
    if branches is not None:
        if "anyOf" in node and "oneOf" in node:
            raise _NotStrict("anyOf and oneOf on one schema have no strict form")
        out["anyOf"] = [_strict(_merge(_without_choice(node), b), depth) for b in branches]
        return out
    kinds = _types(node)
    if not kinds:
        raise _NotStrict("a value of any type has no strict form")
    out["type"] = kinds[0] if len(kinds) == 1 else kinds
    if "const" in node:
        out["enum"] = [node["const"]]
    elif "enum" in node:
        out["enum"] = list(node["enum"])
    for key in STRICT_KEPT_KEYWORDS - {"description"}:
        if key in node:
            out[key] = node[key]
    if node.get("format") in STRICT_FORMATS:
        out["format"] = node["format"]
    if "object" in kinds:
        _strict_object(node, out, depth)
    if "array" in kinds:
        if not isinstance(node.get("items"), dict):
            raise _NotStrict("an array without an items schema has no strict form")
        out["items"] = _strict(node["items"], depth + 1)
    return out


def _strict_object(node: dict[str, Any], out: dict[str, Any], depth: int) -> None:
    props = node.get("properties") or {}
    extra = node.get("additionalProperties", True)
    if isinstance(extra, dict) and extra != {}:
        raise _NotStrict("an object with an additionalProperties schema has no strict form")
    if not props and extra is not False:
        raise _NotStrict("an object with no declared properties has no strict form")
    required = set(node.get("required") or [])
    properties: dict[str, Any] = {}
    for name, sub in props.items():
        converted = _strict(sub, depth + 1)
        properties[name] = converted if name in required else _nullable(converted)
    out["properties"] = properties
    out["required"] = list(props)
    out["additionalProperties"] = False


def _without_choice(node: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in node.items() if k not in ("anyOf", "oneOf", "description")}


def _types(node: dict[str, Any]) -> list[str]:
    declared = node.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [str(t) for t in declared]
    values = [node["const"]] if "const" in node else node.get("enum")
    if isinstance(values, list) and values:
        found = {_json_type(v) for v in values}
        return sorted(found)
    if "properties" in node:
        return ["object"]
    if "items" in node:
        return ["array"]
    return []


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    for name in ("null", "object", "array", "string", "number"):
        if isinstance(value, _JSON_TYPES[name]):
            return name
    raise _NotStrict(f"the value {value!r} has no JSON type")


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """Return ``schema`` also accepting ``null`` (for an optional property)."""
    if "anyOf" in schema:
        if not any(_takes_null(b) for b in schema["anyOf"]):
            schema = {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
        return schema
    kinds = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    out = dict(schema)
    if "null" not in kinds:
        out["type"] = [*kinds, "null"]
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def _takes_null(schema: Any) -> bool:
    """Whether a resolved schema accepts ``null`` (a schema without ``type`` does)."""
    if not isinstance(schema, dict):
        return schema is True
    if "const" in schema:
        return schema["const"] is None
    if "enum" in schema and None not in schema["enum"]:
        return False
    for key in ("anyOf", "oneOf"):
        if key in schema and not any(_takes_null(b) for b in schema[key]):
            return False
    declared = schema.get("type")
    if declared is None:
        return True
    return declared == "null" or (isinstance(declared, list) and "null" in declared)


# -- reading arguments back -------------------------------------------------------------------


def _admits(schema: dict[str, Any], value: Any) -> bool:
    """Whether ``value``'s JSON type is one ``schema`` allows (any, without a type)."""
    try:
        kinds = _types(schema)
    except _NotStrict:
        return True
    return not kinds or any(_is_type(value, kind) for kind in kinds)


def _is_type(value: Any, kind: str) -> bool:
    if kind == "boolean" or isinstance(value, bool):
        return kind == "boolean" and isinstance(value, bool)
    if kind == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    return isinstance(value, _JSON_TYPES.get(kind, ()))


def _drop_nulls(schema: dict[str, Any], value: Any) -> Any:
    branches = schema.get("anyOf", schema.get("oneOf"))
    if isinstance(branches, list):
        fitting = [b for b in branches if isinstance(b, dict) and _admits(b, value)]
        if len(fitting) != 1:
            return copy.deepcopy(value)
        schema = _merge(_without_choice(schema), fitting[0])
    if isinstance(value, dict):
        props = schema.get("properties") or {}
        required = set(schema.get("required") or [])
        out: dict[str, Any] = {}
        for key, item in value.items():
            sub = props.get(key)
            if item is None and key not in required and sub is not None and not _takes_null(sub):
                continue
            out[key] = _drop_nulls(sub, item) if isinstance(sub, dict) else copy.deepcopy(item)
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_drop_nulls(schema["items"], item) for item in value]
    return copy.deepcopy(value)
