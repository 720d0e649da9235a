"""Declarative tools: a YAML/JSON spec (no Python) turned into a :class:`~interlock.tools.Tool`.

Spec format: docs/skills-and-employees.md, "Declarative tools". Two kinds:

* ``text_template``: fills ``template`` from the arguments and returns the text;
* ``http_json``: one HTTPS request whose JSON answer becomes the result
  (:mod:`interlock.adapters.http_json`, guarded by :mod:`interlock.adapters.net_guard`);
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
from urllib.parse import urlsplit

import httpx

from interlock.adapters.http_json import MAX_PARAMS, HttpJsonRequest
from interlock.adapters.json_mapping import (
    ListResponse,
    ResponseSpecError,
    SingleResponse,
    parse_response_spec,
)
from interlock.adapters.mcp_http import SPEC_KEYS as MCP_HTTP_KEYS
from interlock.adapters.mcp_http import McpHttpSpecError, parse_mcp_http
from interlock.adapters.spec_checks import (
    DeclarativeToolError,
    SpecPath,
    flag,
    known_keys,
    listed,
    require_string,
    sub_mapping,
    type_name,
)
from interlock.adapters.templating import (
    Template,
    TemplateSyntaxError,
    ValueTemplate,
    parse_template,
    parse_value,
)
from interlock.approvals.rules import approval_timeout_problem, approvals_required_problem
from interlock.settings import Connection, Settings
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
REQUEST_KEYS = frozenset({"method", "url", "connection", "params", "body"})
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
        template = _template(require_string(spec, "template", []), arguments, ["template"])
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
    request = sub_mapping(spec, "request", [], required=True)
    known_keys(request, REQUEST_KEYS, ["request"], "request")
    method = request.get("method", "GET")
    if method not in ("GET", "POST"):
        raise DeclarativeToolError(
            f"method must be GET or POST, got {method!r}", ["request", "method"]
        )
    write = flag(spec, "write", method == "POST")
    defaults = ToolAnnotations(read_only=not write, idempotent=method == "GET", open_world=True)
    effective_timeout = float(timeout_s if timeout_s is not None else settings.tool_timeout_s)
    origin, path = _url(request, arguments)
    params, body, connection = _params(request, arguments, settings)
    handler = HttpJsonRequest(
        tool_name=name,
        method=method,
        origin=origin,
        path=path,
        params=params,
        body=body,
        connection=connection,
        response=_response(spec.get("response")),
        timeout_s=effective_timeout,
        write=write,
        allowed_hosts=tuple(settings.http_allowed_hosts),
        ca_bundle=settings.http_ca_bundle,
    )
    return Tool(
        **fields,
        handler=handler,
        write=write,
        timeout_s=effective_timeout + HTTP_TIMEOUT_GRACE_S,
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


# -- request ---------------------------------------------------------------------------------


def _url(request: dict[str, Any], arguments: set[str]) -> tuple[str, Template]:
    """Return ``(origin, path template)`` of ``request.url`` (https, placeholders in the path)."""
    at: SpecPath = ["request", "url"]
    url = require_string(request, "url", ["request"])
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise DeclarativeToolError(f"url is not a URL: {exc}", at) from None
    if parts.scheme.lower() != "https":
        raise DeclarativeToolError("url must start with https:// (plain http is refused)", at)
    netloc = parts.netloc
    if not netloc or any(c in netloc for c in "{}@"):
        raise DeclarativeToolError(
            "url needs a literal host (no placeholders, no user:password@)", at
        )
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        raise DeclarativeToolError(
            "url may not have a query or fragment; put query parameters under request.params",
            at,
        )
    try:
        host = httpx.URL(f"https://{netloc}/").host
    except (httpx.InvalidURL, ValueError) as exc:
        raise DeclarativeToolError(f"url has an invalid host: {exc}", at) from None
    if not host:
        raise DeclarativeToolError("url has no host", at)
    path = _template(parts.path or "/", arguments, at)
    literal = "".join(p for p in path.parts if isinstance(p, str))
    if any(seg in (".", "..") for seg in literal.split("/")):
        raise DeclarativeToolError("url path may not contain '.' or '..' segments", at)
    return f"https://{netloc}", path


def _params(
    request: dict[str, Any], arguments: set[str], settings: Settings
) -> tuple[dict[str, ValueTemplate], ValueTemplate | None, Connection | None]:
    """Return ``(params, body, connection)`` of ``request``."""
    connection = None
    name = request.get("connection")
    if name is not None:
        if not isinstance(name, str) or name not in settings.connections:
            known = ", ".join(sorted(settings.connections)) or "none"
            raise DeclarativeToolError(
                f"connection {name!r} is not configured (INTERLOCK_CONNECTIONS has: {known})",
                ["request", "connection"],
            )
        connection = settings.connections[name]
    raw = sub_mapping(request, "params", ["request"], required=False)
    if len(raw) > MAX_PARAMS:
        raise DeclarativeToolError(f"at most {MAX_PARAMS} params", ["request", "params"])
    params: dict[str, ValueTemplate] = {}
    for key, value in raw.items():
        at: SpecPath = ["request", "params", key]
        if not isinstance(key, str) or not key:
            raise DeclarativeToolError("parameter names must be non-empty strings", at)
        if connection is not None and key in connection.params:
            raise DeclarativeToolError(f"parameter {key!r} is set by connection {name!r}", at)
        for index, item in enumerate(value if isinstance(value, list) else [value]):
            if isinstance(item, dict | list):
                where = [*at, index] if isinstance(value, list) else at
                raise DeclarativeToolError(
                    "a query parameter value cannot be an object or nested list", where
                )
        params[key] = _value(value, arguments, at)
    body = None
    if "body" in request:
        at = ["request", "body"]
        if request.get("method", "GET") != "POST":
            raise DeclarativeToolError("only a POST request has a body", at)
        if not isinstance(request["body"], dict):
            raise DeclarativeToolError(
                f"body must be a mapping, got {type_name(request['body'])}", at
            )
        body = _value(request["body"], arguments, at)
    return params, body, connection


def _value(value: Any, arguments: set[str], at: SpecPath) -> ValueTemplate:
    try:
        parsed = parse_value(value, [])
    except TemplateSyntaxError as exc:
        raise DeclarativeToolError(exc.message, [*at, *exc.path]) from None
    for path, placeholder in parsed.placeholders():
        _check_argument(placeholder.key, arguments, [*at, *path])
    return parsed


def _template(source: str, arguments: set[str], at: SpecPath) -> Template:
    try:
        template = parse_template(source)
    except TemplateSyntaxError as exc:
        raise DeclarativeToolError(exc.message, at) from None
    for placeholder in template.placeholders:
        _check_argument(placeholder.key, arguments, at)
    return template


def _check_argument(key: str, arguments: set[str], at: SpecPath) -> None:
    if key not in arguments:
        shown = "{query}" if key == "query" else f"{{arguments.{key}}}"
        declared = ", ".join(sorted(arguments)) or "none"
        raise DeclarativeToolError(
            f"placeholder {shown} names argument {key!r}, which input_schema.properties "
            f"does not declare (declared: {declared})",
            at,
        )


def _response(raw: Any) -> SingleResponse | ListResponse:
    try:
        return parse_response_spec(raw)
    except ResponseSpecError as exc:
        raise DeclarativeToolError(exc.message, ["response", *exc.path]) from None


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
