"""Registration-time schema rules: the supported JSON Schema subset and its checks.

Tool schemas are sent to model providers as function ``parameters``. Providers accept only part
of JSON Schema, and differently, so Interlock accepts a documented subset
(:data:`SUPPORTED_SCHEMA_KEYWORDS`) within size and depth limits, checked once per tool at
registration by :func:`check_schema_rules`. The walk over subschema positions
(:data:`SCHEMA_VALUED` and friends) is shared with :mod:`interlock.tools.schema.inline`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from jsonschema.exceptions import SchemaError  # type: ignore[import-untyped]

from interlock.tools.schema.known_valid import KNOWN_VALID_SCHEMAS
from interlock.tools.schema.validation import cut_message

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
  ``discriminator`` (OpenAPI; stripped from pydantic-derived schemas by
  :func:`~.inline.model_schema`);
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

ANNOTATION_KEYWORDS = frozenset(
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
"""Keywords that only annotate a schema (no effect on validation)."""

# Keywords whose value is one subschema, a list of subschemas, or a name -> subschema map.
SCHEMA_VALUED = ("items", "additionalProperties", "not")
SCHEMA_LIST_VALUED = ("prefixItems", "anyOf", "oneOf", "allOf")
SCHEMA_MAP_VALUED = ("properties", "$defs")


class SchemaRuleError(ValueError):
    """A schema breaks one of Interlock's schema rules; ``str(exc)`` is the reason."""


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
    for key in SCHEMA_VALUED:
        if key in schema:
            yield from _iter_subschemas(schema[key], f"{pointer}/{key}", depth + 1)
    for key in SCHEMA_LIST_VALUED:
        value = schema.get(key)
        if isinstance(value, list):
            for index, sub in enumerate(value):
                yield from _iter_subschemas(sub, f"{pointer}/{key}/{index}", depth + 1)
    for key in SCHEMA_MAP_VALUED:
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


def _node_at(root: Any, pointer: str) -> Any:
    node = root
    for raw in pointer.split("/")[1:] if pointer != "/" else []:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return None
    return node


def _same_instance(root: Any, pointer: str) -> list[str]:
    """Pointers of the subschemas that ``pointer``'s schema applies to the same value
    (``$ref``, ``allOf``/``anyOf``/``oneOf`` entries, ``not``): no step into the data."""
    node = _node_at(root, pointer)
    if not isinstance(node, dict):
        return []
    base = "" if pointer == "/" else pointer
    out: list[str] = []
    ref = node.get("$ref")
    if isinstance(ref, str) and (ref == "#" or ref.startswith("#/")):
        out.append(ref[1:] or "/")
    for key in ("allOf", "anyOf", "oneOf"):
        value = node.get(key)
        if isinstance(value, list):
            out.extend(f"{base}/{key}/{index}" for index in range(len(value)))
    if "not" in node:
        out.append(f"{base}/not")
    return out


def ref_loop(schema: Any) -> str | None:
    """Return a ``$ref`` loop that never steps into the data (``/$defs/a -> /$defs/b ->
    /$defs/a``), or None. Validating any value against such a schema never ends (a
    ``RecursionError``); recursion through ``properties`` or ``items`` (a tree) is fine."""
    done: set[str] = set()
    for start, _sub, _depth in _iter_subschemas(schema):
        if start in done:
            continue
        path: list[str] = [start]
        on_path = {start}
        stack = [iter(_same_instance(schema, start))]
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                stack.pop()
                finished = path.pop()
                on_path.discard(finished)
                done.add(finished)
                continue
            if nxt in on_path:
                cycle = [*path[path.index(nxt) :], nxt]
                return " -> ".join(cycle)
            if nxt in done:
                continue
            path.append(nxt)
            on_path.add(nxt)
            stack.append(iter(_same_instance(schema, nxt)))
    return None


def schema_json_size(schema: Any) -> int:
    """Return the length of ``schema`` as compact JSON, in characters.

    Raises:
        SchemaRuleError: When the schema is not JSON (cycles, non-JSON values, NaN) or nests so
            deeply that encoding it overflows the recursion limit.
    """
    return len(schema_json_text(schema))


def schema_json_text(schema: Any) -> str:
    """Return ``schema`` as compact JSON text (keys in their order, non-ASCII kept).

    Raises:
        SchemaRuleError: As :func:`schema_json_size`.
    """
    try:
        return json.dumps(schema, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise SchemaRuleError(f"is not JSON-serializable ({exc})") from None
    except RecursionError:
        raise SchemaRuleError(f"nests deeper than {MAX_SCHEMA_DEPTH} levels") from None


def schema_digest(text: str) -> str:
    """Return the SHA-256 hex digest of a schema's :func:`schema_json_text`."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _known_valid(schema: Any, text: str) -> bool:
    """Whether ``schema`` is one already proved a valid Draft 2020-12 schema (see
    :mod:`~interlock.tools.schema.known_valid`): its JSON text's digest is listed, and it is
    that JSON value itself (a tuple where the text has an array, for one, is not)."""
    return schema_digest(text) in KNOWN_VALID_SCHEMAS and json.loads(text) == schema


def check_schema_rules(schema: Any, *, require_object_root: bool) -> None:
    """Check one tool schema against Interlock's rules, first failure first.

    Rules, in order: a JSON object; at most :data:`MAX_SCHEMA_CHARS` characters; valid Draft
    2020-12 (``Draft202012Validator.check_schema``); only :data:`SUPPORTED_SCHEMA_KEYWORDS`;
    ``$schema``/``$id``/``$ref`` as documented there; at most :data:`MAX_SCHEMA_DEPTH` levels;
    and, for argument schemas, ``"type": "object"`` at the root (providers' function
    ``parameters`` must describe an object of named arguments). The Draft 2020-12 check is
    skipped for a schema listed in :data:`~.known_valid.KNOWN_VALID_SCHEMAS` (same result).

    Args:
        schema: The schema to check.
        require_object_root: True for input schemas.

    Raises:
        SchemaRuleError: With a reason such as ``"uses unsupported keyword 'if' at /"``.
    """
    if not isinstance(schema, dict):
        raise SchemaRuleError(f"must be a JSON object, got {type(schema).__name__}")
    text = schema_json_text(schema)
    if len(text) > MAX_SCHEMA_CHARS:
        raise SchemaRuleError(
            f"is {len(text):,} characters of JSON, more than the {MAX_SCHEMA_CHARS:,} allowed"
        )
    try:
        # The metaschema check is most of a start's schema work (about 0.1 s for the built-in
        # tools' 17 schemas): a schema whose text passed it before (built-in tools, proved by
        # tests/tools/test_tools_known_valid_schemas.py) skips it; every other rule still runs.
        if not _known_valid(schema, text):
            Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = "/" + "/".join(_escape(str(p)) for p in exc.absolute_path)
        raise SchemaRuleError(
            f"is not a valid Draft 2020-12 schema at {where}: {cut_message(exc.message)}"
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
    loop = ref_loop(schema)
    if loop is not None:
        raise SchemaRuleError(f"has a $ref loop that never reaches the data ({loop})")
    if require_object_root and schema.get("type") != "object":
        raise SchemaRuleError('must have "type": "object" at the root')
