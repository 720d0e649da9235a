"""The ``request`` and ``response`` of a declarative ``http_json`` tool, checked and turned into
its handler (:class:`~interlock.adapters.http_json.HttpJsonRequest`).

Rules (docs/skills-and-employees.md, "Declarative tools"): ``https://`` URLs with a literal
host and no query (parameters go under ``request.params``), placeholders naming declared
arguments, a configured ``connection``, a body only for POST, a valid ``response`` mapping.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from interlock.adapters.http_json import MAX_PARAMS, HttpJsonRequest
from interlock.adapters.json_mapping import (
    ListResponse,
    ResponseSpecError,
    SingleResponse,
    parse_response_spec,
)
from interlock.adapters.spec_checks import (
    DeclarativeToolError,
    SpecPath,
    checked_template,
    checked_value,
    flag,
    known_keys,
    require_string,
    sub_mapping,
    type_name,
)
from interlock.adapters.templating import Template, ValueTemplate
from interlock.settings import Connection, Settings

REQUEST_KEYS = frozenset({"method", "url", "connection", "params", "body"})


def parse_http_json(
    spec: dict[str, Any],
    name: str,
    arguments: set[str],
    settings: Settings,
    timeout_s: float | None,
) -> tuple[HttpJsonRequest, bool, str]:
    """Check an ``http_json`` spec's ``request`` and ``response`` and build its handler.

    Args:
        spec: The tool spec. name: The tool's name.
        arguments: Argument names its ``input_schema`` declares.
        settings: ``connections``, ``tool_timeout_s`` and the test-only
            ``http_allowed_hosts`` and ``http_ca_bundle``.
        timeout_s: The spec's ``timeout_s``, or None for the setting.

    Returns:
        ``(handler, write, method)``; ``write`` defaults to true for POST.

    Raises:
        DeclarativeToolError: On the first problem, with its path into ``spec``.
    """
    request = sub_mapping(spec, "request", [], required=True)
    known_keys(request, REQUEST_KEYS, ["request"], "request")
    method = request.get("method", "GET")
    if method not in ("GET", "POST"):
        raise DeclarativeToolError(
            f"method must be GET or POST, got {method!r}", ["request", "method"]
        )
    write = flag(spec, "write", method == "POST")
    effective_timeout = float(timeout_s if timeout_s is not None else settings.tool_timeout_s)
    origin, path = _url(request, arguments)
    params, body, connection = _params(request, arguments, settings)
    handler = HttpJsonRequest(
        tool_name=spec.get("title") or name,
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
    return handler, write, method


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
    import httpx  # only a skill with an http_json tool needs it (see interlock.adapters.http_json)

    try:
        host = httpx.URL(f"https://{netloc}/").host
    except (httpx.InvalidURL, ValueError) as exc:
        raise DeclarativeToolError(f"url has an invalid host: {exc}", at) from None
    if not host:
        raise DeclarativeToolError("url has no host", at)
    path = checked_template(parts.path or "/", arguments, at)
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
        params[key] = checked_value(value, arguments, at)
    body = None
    if "body" in request:
        at = ["request", "body"]
        if request.get("method", "GET") != "POST":
            raise DeclarativeToolError("only a POST request has a body", at)
        if not isinstance(request["body"], dict):
            raise DeclarativeToolError(
                f"body must be a mapping, got {type_name(request['body'])}", at
            )
        body = checked_value(request["body"], arguments, at)
    return params, body, connection


def _response(raw: Any) -> SingleResponse | ListResponse:
    try:
        return parse_response_spec(raw)
    except ResponseSpecError as exc:
        raise DeclarativeToolError(exc.message, ["response", *exc.path]) from None
