"""The input schema of a ``grouped`` MCP tool: one namespace's actions merged into one object.

A grouped tool (``notes``) stands for the tools of one namespace (``notes.add``,
``notes.delete``, ``notes.list``); the tool name's last dot-separated segment is the action.
Its input schema (:func:`merged_input_schema`) is an object with

* ``action``: required, ``{"type": "string", "enum": [<actions, sorted>]}``, its description
  naming what each action does;
* every other field of every action once. Each field's description ends with a note saying
  which actions take it: ``Required for: add.`` and/or ``For: delete.``. A field that several
  actions declare with the same schema (descriptions and titles aside) keeps that schema. A
  field whose schemas differ between actions (``id`` an integer for one action and a string
  for another) becomes ``{"anyOf": [...]}`` with one branch per distinct schema, each branch's
  description starting ``For <actions>:``, so no action's type is lost and the field keeps
  its name (the arguments map back unchanged);
* ``additionalProperties: false`` when every action's schema says so.

Only ``action`` is required at the top: which fields an action requires, and any other rule of
its schema (root ``anyOf``, ``minProperties``...), is checked after the call is mapped back,
by the normal validation against that action's own schema. Local ``$ref`` s keep working: an
action whose schema uses ``$ref`` has its whole schema kept under ``$defs/<action>`` and its
references rewritten to point there.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from interlock.tools import Tool

ACTION_FIELD = "action"
"""The discriminator field of a grouped tool."""

_ANNOTATIONS = ("description", "title", "examples", "$comment")
_VALUES = frozenset({"enum", "const", "default", "examples"})
"""Keywords holding JSON values, not schemas: a ``$ref`` key in them is data."""
_IDENTITY = ("$schema", "$id")


def split_name(name: str) -> tuple[str | None, str]:
    """Split a tool name at its last dot: ``notes.add`` -> ``("notes", "add")``.

    Returns:
        ``(namespace, action)``; ``(None, name)`` for a name without a dot.
    """
    namespace, dot, action = name.rpartition(".")
    return (namespace, action) if dot else (None, name)


def can_group(tool: Tool) -> bool:
    """Return whether ``tool`` can be an action of a grouped tool.

    A tool without a namespace (``suggestions``), or one whose own arguments include a field
    named ``action``, is listed on its own (flat) in a grouped listing too.
    """
    namespace, _ = split_name(tool.name)
    properties = tool.input_schema.get("properties")
    return namespace is not None and not (
        isinstance(properties, dict) and ACTION_FIELD in properties
    )


def merged_input_schema(actions: list[tuple[str, Tool]]) -> dict[str, Any]:
    """Merge the input schemas of one namespace's actions (rules in the module docstring).

    Args:
        actions: ``(action, tool)`` pairs, sorted by action, none with an ``action`` field.

    Returns:
        A new JSON Schema object (Draft 2020-12).
    """
    defs: dict[str, Any] = {}
    # field -> list of (action, schema, required)
    fields: dict[str, list[tuple[str, Any, bool]]] = {}
    closed = True
    for action, tool in actions:
        schema = copy.deepcopy(tool.input_schema)
        for key in _IDENTITY:
            schema.pop(key, None)
        if has_ref(schema):
            prefix = "#/$defs/" + _escape(action)
            schema = _rewrite_refs(schema, prefix)
            defs[action] = schema
        if schema.get("additionalProperties") is not False:
            closed = False
        required = set(schema.get("required") or [])
        for name, field in (schema.get("properties") or {}).items():
            fields.setdefault(name, []).append((action, field, name in required))

    lines = "; ".join(f"{action}: {tool.title}" for action, tool in actions)
    properties: dict[str, Any] = {
        ACTION_FIELD: {
            "type": "string",
            "enum": [action for action, _ in actions],
            "description": f"What to do ({lines}).",
        }
    }
    for name, uses in fields.items():
        properties[name] = _merged_field(uses)
    merged: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": [ACTION_FIELD],
    }
    if closed:
        merged["additionalProperties"] = False
    if defs:
        merged["$defs"] = defs
    return merged


def _merged_field(uses: list[tuple[str, Any, bool]]) -> dict[str, Any]:
    """One field of the merged schema, from each action's ``(action, schema, required)``."""
    required = [action for action, _, is_required in uses if is_required]
    optional = [action for action, _, is_required in uses if not is_required]
    notes = []
    if required:
        notes.append(f"Required for: {', '.join(required)}.")
    if optional:
        notes.append(f"For: {', '.join(optional)}.")
    note = " ".join(notes)

    # Distinct schemas (annotations aside), in order of first use, with their uses.
    distinct: dict[str, list[tuple[str, Any, bool]]] = {}
    for use in uses:
        key = json.dumps(_without_annotations(_as_dict(use[1])), sort_keys=True)
        distinct.setdefault(key, []).append(use)

    if len(distinct) == 1:
        field = copy.deepcopy(_as_dict(uses[0][1]))
        field["description"] = f"{_text(uses)} {note}".strip()
        return field

    branches = []
    for group in distinct.values():
        branch = copy.deepcopy(_as_dict(group[0][1]))
        prefix = f"For {', '.join(action for action, _, _ in group)}"
        if len(_descriptions(group)) > 1:
            branch["description"] = _text(group)
        else:
            branch["description"] = f"{prefix}: {_text(group)}" if _text(group) else prefix + "."
        branches.append(branch)
    return {"anyOf": branches, "description": f"Differs by action. {note}"}


def _text(uses: list[tuple[str, Any, bool]]) -> str:
    """A field's description from its actions' own: the one text they share, or each
    prefixed ``For <action>:``; "" when none has one."""
    texts = _descriptions(uses)
    if len(texts) <= 1:
        return " ".join(_sentence(text) for text in texts)
    return " ".join(f"For {action}: {_sentence(text)}" for action, text in _described(uses))


def _descriptions(uses: list[tuple[str, Any, bool]]) -> list[str]:
    """The distinct non-empty descriptions of a field, in order."""
    seen: list[str] = []
    for _, text in _described(uses):
        if text not in seen:
            seen.append(text)
    return seen


def _described(uses: list[tuple[str, Any, bool]]) -> list[tuple[str, str]]:
    out = []
    for action, schema, _ in uses:
        text = schema.get("description") if isinstance(schema, dict) else None
        if isinstance(text, str) and text.strip():
            out.append((action, text.strip()))
    return out


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _as_dict(schema: Any) -> dict[str, Any]:
    """A boolean schema as an object schema (``true`` -> ``{}``, ``false`` -> ``{"not": {}}``)."""
    if schema is True:
        return {}
    if schema is False:
        return {"not": {}}
    return dict(schema) if isinstance(schema, dict) else {}


def _without_annotations(schema: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in schema.items() if key not in _ANNOTATIONS}


def has_ref(node: Any) -> bool:
    """Return whether a schema (or any value in it) has a ``$ref``."""
    if isinstance(node, dict):
        return "$ref" in node or any(
            has_ref(value) for key, value in node.items() if key not in _VALUES
        )
    if isinstance(node, list):
        return any(has_ref(item) for item in node)
    return False


def _rewrite_refs(node: Any, prefix: str) -> Any:
    """Return ``node`` with every local ``$ref`` (``#``, ``#/...``) moved under ``prefix``."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith("#"):
                out[key] = prefix + value[1:]
            elif key in _VALUES:
                out[key] = value
            else:
                out[key] = _rewrite_refs(value, prefix)
        return out
    if isinstance(node, list):
        return [_rewrite_refs(item, prefix) for item in node]
    return node


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")
