"""Schemas from pydantic models: :func:`model_schema` inlines every ``$ref``.

``@tool`` input and output models become JSON Schemas here; nested models are substituted in
place so providers see one self-contained schema.
"""

from __future__ import annotations

import copy
from typing import Any, cast

from pydantic import BaseModel

from interlock.tools.schema.rules import (
    ANNOTATION_KEYWORDS,
    SCHEMA_LIST_VALUED,
    SCHEMA_MAP_VALUED,
    SCHEMA_VALUED,
    SchemaRuleError,
)


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
        if (set(siblings) & set(target)) - ANNOTATION_KEYWORDS:
            return {**siblings, "allOf": [target]}
        return {**target, **siblings}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "discriminator":
            continue
        if key in SCHEMA_VALUED:
            out[key] = _inline(value, defs, stack)
        elif key in SCHEMA_LIST_VALUED and isinstance(value, list):
            out[key] = [_inline(sub, defs, stack) for sub in value]
        elif key in SCHEMA_MAP_VALUED and isinstance(value, dict):
            out[key] = {name: _inline(sub, defs, stack) for name, sub in value.items()}
        else:
            out[key] = copy.deepcopy(value)
    return out
