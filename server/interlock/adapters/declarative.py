"""Declarative tools: a YAML/JSON spec (no Python) turned into a :class:`~interlock.tools.Tool`.

Spec format: docs/skills-and-employees.md, "Declarative tools". Three kinds:

* ``text_template``: fills ``template`` from the arguments and returns the text;
* ``http_json``: one HTTPS request whose JSON answer becomes the result
  (:mod:`interlock.adapters.http_json`, guarded by :mod:`interlock.adapters.net_guard`; its
  ``request`` and ``response`` keys are checked by :mod:`interlock.adapters.http_json_spec`);
* ``mcp_http``: one call to a tool of a remote MCP server (:mod:`interlock.adapters.mcp_http`).

Everything that can be checked without running the tool is checked here, so a broken spec is
reported when its skill loads, with a path into the spec (:class:`DeclarativeToolError`):
unknown keys anywhere, types, the schemas (:func:`interlock.tools.schema.check_schema_rules`),
placeholders naming arguments the input schema does not declare, ``https://`` URLs, that
the named connection exists. Registration rules proper (name format, duplicates) stay with
:meth:`interlock.tools.ToolRegistry.register`.
"""

from __future__ import annotations

import copy
import math
from typing import Any

from interlock.adapters.http_json_spec import parse_http_json
from interlock.adapters.mcp_http import SPEC_KEYS as MCP_HTTP_KEYS
from interlock.adapters.mcp_http import McpHttpSpecError, parse_mcp_http
from interlock.adapters.spec_checks import (
    DeclarativeToolError,
    checked_template,
    flag,
    known_keys,
    listed,
    require_string,
    sub_mapping,
    type_name,
)
from interlock.adapters.templating import Template
from interlock.approvals.rules import approval_timeout_problem, approvals_required_problem
from interlock.settings import Settings
from interlock.text import name_problem
from interlock.tools.base import (
    Handler,
    Permission,
    Tool,
    ToolAnnotations,
    ToolContext,
    ToolResult,
)
from interlock.tools.registration import tags_problem
from interlock.tools.schema import SchemaRuleError, check_schema_rules

__all__ = ["DeclarativeToolError", "build_declarative_tool"]

COMMON_KEYS = frozenset(
    {"name", "kind", "title", "description", "permission", "write", "annotations"}
    | {"timeout_s", "input_schema", "output_schema", "card"}
    | {"approval_timeout_s", "require_approver", "approvals_required", "tags"}
)
KIND_KEYS = {
    "text_template": frozenset({"template"}),
    "http_json": frozenset({"request", "response"}),
    "mcp_http": MCP_HTTP_KEYS,
}
ANNOTATION_KEYS = frozenset({"read_only", "destructive", "idempotent", "open_world"})
CARDS = frozenset({"approval", "choice", "form", "confirm", "markdown"})
"""Built-in client cards (docs/skills-and-employees.md, front matter ``cards``)."""
MAX_TIMEOUT_S = 300.0
"""Longest ``timeout_s`` a spec may declare, in seconds."""
HTTP_TIMEOUT_GRACE_S = 1.0
"""An ``http_json`` tool enforces its ``timeout_s`` itself (so that a write can end as
``outcome_unknown`` rather than a bare ``timeout``); its ``Tool.timeout_s``, the registry's
backstop, is this many seconds longer."""


def build_declarative_tool(spec: dict[str, Any], *, skill: str, settings: Settings) -> Tool:
    """Check a declarative tool spec and build its :class:`Tool` (not yet registered).

    Args:
        spec: One tool spec (an item of front matter ``tools:`` or of ``tools.yaml``).
        skill: The skill's name: the tool must be named ``<skill>`` or ``<skill>.<rest>``.
        settings: For ``connections``, ``tool_timeout_s`` (the default ``timeout_s``) and the
            test-only ``http_allowed_hosts`` and ``http_ca_bundle``; read now, at build.

    Returns:
        The tool. Defaults: ``permission`` ASK; ``write`` false (text_template, GET) or true
        (POST); annotations from the kind (text_template: read-only, idempotent, closed
        world; http_json: read-only unless ``write``, idempotent for GET, open world),
        overridden key by key by ``annotations``.

    Raises:
        DeclarativeToolError: On the first problem, with its path into ``spec``.
    """
    if not isinstance(spec, dict):
        raise DeclarativeToolError(f"a tool spec must be a mapping, got {type_name(spec)}", [])
    kind = spec.get("kind")
    if kind not in KIND_KEYS:
        where = ["kind"] if "kind" in spec else []
        raise DeclarativeToolError(f"kind must be one of {listed(KIND_KEYS)}, got {kind!r}", where)
    known_keys(spec, COMMON_KEYS | KIND_KEYS[kind], [], f"a {kind} tool")
    name = require_string(spec, "name", [])
    if name != skill and not name.startswith(f"{skill}."):
        raise DeclarativeToolError(f"name must be '{skill}' or start with '{skill}.'", ["name"])
    title = require_string(spec, "title", [])
    if problem := name_problem(title, "A tool's title"):
        raise DeclarativeToolError(problem, ["title"])
    description = require_string(spec, "description", [])
    permission = spec.get("permission", "ASK")
    if permission not in ("ALLOW", "ASK", "DENY"):
        raise DeclarativeToolError(
            f"permission must be ALLOW, ASK or DENY, got {permission!r}", ["permission"]
        )
    if "input_schema" not in spec:
        raise DeclarativeToolError("missing required key 'input_schema'", [])
    input_schema = _schema(spec, "input_schema")
    output_schema = _schema(spec, "output_schema") if "output_schema" in spec else None
    card = spec.get("card")
    if card is not None and card not in CARDS:
        raise DeclarativeToolError(f"card must be one of {listed(CARDS)}, got {card!r}", ["card"])
    timeout_s = spec.get("timeout_s")
    if timeout_s is not None and (
        not isinstance(timeout_s, int | float)
        or isinstance(timeout_s, bool)
        or not math.isfinite(timeout_s)
        or not 0 < timeout_s <= MAX_TIMEOUT_S
    ):
        raise DeclarativeToolError(
            f"timeout_s must be a number of seconds above 0 and at most {MAX_TIMEOUT_S:g}",
            ["timeout_s"],
        )
    approvals_required = spec.get("approvals_required", 1)
    approval_timeout_s = spec.get("approval_timeout_s")
    for key, problem in (
        ("approvals_required", approvals_required_problem(approvals_required)),
        ("approval_timeout_s", approval_timeout_problem(approval_timeout_s)),
    ):
        if problem is not None:
            raise DeclarativeToolError(problem, [key])
    properties = input_schema.get("properties")
    arguments = set(properties) if isinstance(properties, dict) else set()
    fields: dict[str, Any] = {
        "name": name,
        "title": title,
        "description": description,
        "input_schema": input_schema,
        "output_schema": output_schema,
        "permission": Permission(permission),
        "card": card,
        "approval_timeout_s": approval_timeout_s,
        "require_approver": flag(spec, "require_approver", False),
        "approvals_required": approvals_required,
        "tags": _tags(spec),
    }
    if kind == "text_template":
        if output_schema is not None:
            raise DeclarativeToolError("a text_template tool returns no data", ["output_schema"])
        write = flag(spec, "write", False)
        if write:
            raise DeclarativeToolError("a text_template tool changes nothing", ["write"])
        template = checked_template(require_string(spec, "template", []), arguments, ["template"])
        defaults = ToolAnnotations(read_only=True, idempotent=True)
        return Tool(
            **fields,
            handler=_text_handler(template),
            write=False,
            timeout_s=timeout_s,
            annotations=_annotations(spec, defaults, write),
        )
    if kind == "mcp_http":
        return _mcp_http_tool(spec, fields, arguments, settings, timeout_s)
    handler, write, method = parse_http_json(spec, name, arguments, settings, timeout_s)
    defaults = ToolAnnotations(read_only=not write, idempotent=method == "GET", open_world=True)
    return Tool(
        **fields,
        handler=handler,
        write=write,
        timeout_s=handler.timeout_s + HTTP_TIMEOUT_GRACE_S,
        annotations=_annotations(spec, defaults, write),
    )


def _mcp_http_tool(
    spec: dict[str, Any],
    fields: dict[str, Any],
    arguments: set[str],
    settings: Settings,
    timeout_s: float | None,
) -> Tool:
    """An ``mcp_http`` tool: ``write`` unless declared false (the remote tool is unknown)."""
    effective_timeout = float(timeout_s if timeout_s is not None else settings.mcp_call_timeout_s)
    try:
        handler = parse_mcp_http(spec, arguments, settings, effective_timeout)
    except McpHttpSpecError as exc:
        raise DeclarativeToolError(exc.message, exc.path) from None
    write = flag(spec, "write", True)
    defaults = ToolAnnotations(read_only=not write, open_world=True)
    return Tool(
        **fields,
        handler=handler,
        check=handler.ready,
        availability=handler.unavailable,
        write=write,
        timeout_s=effective_timeout + HTTP_TIMEOUT_GRACE_S,
        annotations=_annotations(spec, defaults, write),
    )


def _text_handler(template: Template) -> Handler:
    async def fill(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        return ToolResult(text=template.text(args))

    return fill


# -- small checks ----------------------------------------------------------------------------


def _schema(spec: dict[str, Any], key: str) -> dict[str, Any]:
    try:
        check_schema_rules(spec[key], require_object_root=key == "input_schema")
    except SchemaRuleError as exc:
        raise DeclarativeToolError(f"{key} {exc}", [key]) from None
    return copy.deepcopy(dict(spec[key]))


def _annotations(spec: dict[str, Any], defaults: ToolAnnotations, write: bool) -> ToolAnnotations:
    raw = sub_mapping(spec, "annotations", [], required=False)
    known_keys(raw, ANNOTATION_KEYS, ["annotations"], "annotations")
    values = {key: getattr(defaults, key) for key in ANNOTATION_KEYS}
    for key, value in raw.items():
        if not isinstance(value, bool):
            raise DeclarativeToolError(f"{key} must be true or false", ["annotations", key])
        values[key] = value
    if write and values["read_only"]:
        raise DeclarativeToolError(
            "a tool with write: true is not read_only", ["annotations", "read_only"]
        )
    return ToolAnnotations(**values)


def _tags(spec: dict[str, Any]) -> tuple[str, ...]:
    raw = spec.get("tags", [])
    if not isinstance(raw, list):
        raise DeclarativeToolError(f"tags must be a list, got {type_name(raw)}", ["tags"])
    for index, tag in enumerate(raw):
        problem = tags_problem([tag])
        if problem is not None:
            raise DeclarativeToolError(problem, ["tags", index])
    return tuple(raw)
