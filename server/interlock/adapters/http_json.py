"""The ``http_json`` adapter: one HTTPS request per tool call, its JSON answer mapped to a result.

What a call does (rules from docs/skills-and-employees.md, "Declarative tools"):

1. fill the URL path, query parameters and body from the (already validated) arguments;
   limits: :data:`MAX_PARAMS` parameters, :data:`MAX_QUERY_BYTES` of encoded query,
   :data:`MAX_BODY_BYTES` of body, else ``invalid_args``;
2. send it through :func:`interlock.adapters.net_guard.guarded_client` (public HTTPS only, the
   checked address is the one connected to, no redirects, no retries), with the named
   connection's headers and query parameters, within the tool's ``timeout_s``;
3. map the answer: a non-2xx status (3xx included) is ``upstream_error`` with
   ``details={"status": <int>}``; a body that is not JSON, is over :data:`MAX_RESPONSE_BYTES`,
   or lacks a declared path is ``invalid_output``;
4. for writes, a failure after request bytes were sent is ``outcome_unknown``: the server may
   have acted, so nothing is retried, automatically or by suggestion.

Connection secrets never appear in results or errors: messages name the URL without its query
string, and secret values echoed by a server are replaced by ``[redacted]``.

``httpx`` is imported by the functions that use it, not with this module: every start loads
the skills and so this module, but only a skill with an ``http_json`` tool sends requests, and
importing httpx (with its command-line extras: click, rich, pygments) is about 120,000 Python
calls and 100 modules, 5% of a restart to the first answer (issue 7, benchmark f).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote

import anyio

from interlock import __version__
from interlock.adapters import http_words
from interlock.adapters.json_mapping import ListResponse, SingleResponse, map_response, redact
from interlock.adapters.net_guard import DestinationRefused, DestinationUnresolved, guarded_client
from interlock.adapters.templating import MISSING, Template, ValueTemplate, text_of
from interlock.json_words import JSON_ERRORS, json_problem
from interlock.settings import Connection
from interlock.tools.base import ToolContext, ToolError, ToolResult

if TYPE_CHECKING:  # httpx loads with the first call (see the module's docstring)
    import httpx

QueryItems = list[tuple[str, str | int | float | bool | None]]
"""Query parameters as httpx takes them (Interlock only ever puts strings in)."""

MAX_PARAMS = 50
"""Most query parameters a call may send (a list counts once per item)."""
MAX_QUERY_BYTES = 4096
"""Longest encoded query string of a call's own parameters, in bytes."""
MAX_BODY_BYTES = 1024 * 1024
"""Largest JSON request body, in bytes of UTF-8."""
MAX_RESPONSE_BYTES = 4 * 1024 * 1024
"""Largest (decoded) response body read, in bytes; larger answers are ``invalid_output``."""


@dataclass(frozen=True)
class HttpJsonRequest:
    """A checked ``http_json`` spec, ready to run (built by :mod:`interlock.adapters.declarative`).

    Attributes:
        tool_name: How messages name the tool (its title, for the person).
        method: ``GET`` or ``POST``.
        origin: ``https://host[:port]`` (no placeholders).
        path: The URL path template (placeholders are percent-encoded when filled).
        params: Query parameter name -> value template.
        body: Request body template (an object), POST only.
        connection: Credentials to send, from ``settings.connections``.
        response: How to map the answer.
        timeout_s: Whole-call budget in seconds (resolve, connect, send, receive).
        write: True when the call changes data: failures after sending are
            ``outcome_unknown``.
        allowed_hosts: Test-only allowlist (``settings.http_allowed_hosts``).
        ca_bundle: Test-only CA bundle (``settings.http_ca_bundle``).
    """

    tool_name: str
    method: Literal["GET", "POST"]
    origin: str
    path: Template
    params: dict[str, ValueTemplate]
    body: ValueTemplate | None
    connection: Connection | None
    response: SingleResponse | ListResponse
    timeout_s: float
    write: bool
    allowed_hosts: tuple[str, ...] = ()
    ca_bundle: Path | None = None

    async def __call__(self, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """The tool handler: run one call (see the module docstring)."""
        return await run(self, args)


def _bad_args(request: HttpJsonRequest, said: str, detail: str) -> ToolError:
    return http_words.bad_request(request.tool_name, said, detail)


def build_url(request: HttpJsonRequest, arguments: dict[str, Any]) -> str:
    """Fill the path template; each value is percent-encoded whole (``/`` becomes ``%2F``).

    Raises:
        ToolError: ``invalid_args`` when a path value is missing, null, an object or a list,
            empty, or would make a ``.``/``..`` segment.
    """
    out: list[str] = []
    for part in request.path.parts:
        if isinstance(part, str):
            out.append(part)
            continue
        value = arguments.get(part.key, MISSING)
        if value is MISSING or value is None or isinstance(value, dict | list) or value == "":
            raise _bad_args(
                request,
                f"the value for “{part.key}” is missing or empty",
                f"Argument '{part.key}' must be a non-empty value: it is in the URL.",
            )
        out.append(quote(text_of(value), safe=""))
    path = "".join(out)
    if any(seg in (".", "..") for seg in path.split("/")):
        raise _bad_args(
            request,
            "a value in it is not allowed in a web address",
            "The URL path may not contain '.' or '..' segments.",
        )
    return request.origin + path


def render_params(request: HttpJsonRequest, arguments: dict[str, Any]) -> QueryItems:
    """Fill the query parameters: types kept as JSON text, lists repeated, null/missing left out.

    Raises:
        ToolError: ``invalid_args`` on an object value, a nested list, more than
            :data:`MAX_PARAMS` parameters or more than :data:`MAX_QUERY_BYTES` encoded.
    """
    out: QueryItems = []
    for name, template in request.params.items():
        value = template.render(arguments)
        for item in value if isinstance(value, list) else [value]:
            if item is None or item is MISSING:
                continue
            if isinstance(item, dict | list):
                raise _bad_args(
                    request,
                    f"the value for “{name}” has the wrong shape",
                    f"Query parameter '{name}' cannot hold an object or nested list.",
                )
            out.append((name, text_of(item)))
    if len(out) > MAX_PARAMS:
        raise _bad_args(
            request,
            "it has too many values",
            f"The request would have {len(out)} query parameters, over {MAX_PARAMS}.",
        )
    import httpx  # see the module's docstring: loaded with the first call

    size = len(str(httpx.QueryParams(out)).encode())
    if size > MAX_QUERY_BYTES:
        raise _bad_args(
            request,
            "it is too long",
            f"The query string would be {size:,} bytes, over {MAX_QUERY_BYTES:,}.",
        )
    return out


def render_body(request: HttpJsonRequest, arguments: dict[str, Any]) -> bytes | None:
    """Fill the body template and encode it as compact UTF-8 JSON (None without a body).

    Raises:
        ToolError: ``invalid_args`` past :data:`MAX_BODY_BYTES`.
    """
    if request.body is None:
        return None
    value = request.body.render(arguments)
    data = json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()
    if len(data) > MAX_BODY_BYTES:
        raise _bad_args(
            request,
            "it is too large",
            f"The request body would be {len(data):,} bytes, over {MAX_BODY_BYTES:,}.",
        )
    return data


async def run(request: HttpJsonRequest, arguments: dict[str, Any]) -> ToolResult:
    """Send one request and map its answer.

    Args:
        request: The checked spec.
        arguments: Validated arguments.

    Returns:
        ``ToolResult(text, data)``: see :func:`map_response`.

    Raises:
        ToolError: ``invalid_args`` (limits), ``permission_denied`` (destination not allowed),
            ``timeout``, ``upstream_error`` (non-2xx with ``details.status``, or unreachable),
            ``invalid_output`` (not JSON, too large, missing path), ``outcome_unknown`` (a
            write that may have reached the server without a confirmed answer).
    """
    url = build_url(request, arguments)
    params = render_params(request, arguments)
    body = render_body(request, arguments)
    headers = {"Accept": "application/json", "User-Agent": f"Interlock/{__version__}"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    secrets: list[str] = []
    if request.connection is not None:
        for key, secret in request.connection.headers.items():
            headers[key] = secret.get_secret_value()
            secrets.append(headers[key])
        for key, secret in request.connection.params.items():
            params = [(k, v) for k, v in params if k != key]
            params.append((key, secret.get_secret_value()))
            secrets.append(secret.get_secret_value())
    where = f"{request.method} {url}"
    import httpx  # see the module's docstring: loaded with the first call

    client, backend = guarded_client(
        allowed_hosts=request.allowed_hosts,
        ca_bundle=request.ca_bundle,
        timeout_s=request.timeout_s,
    )
    name = request.tool_name
    try:
        with anyio.fail_after(request.timeout_s):
            async with (
                client,
                client.stream(
                    request.method, url, params=params, content=body, headers=headers
                ) as response,
            ):
                _check_status(name, where, response.status_code)
                raw = await _read_capped(name, where, response)
    except DestinationRefused as exc:
        raise http_words.refused_destination(name, str(exc)) from None
    except DestinationUnresolved as exc:
        raise http_words.unreachable(name, f"{where} failed: {exc}.") from None
    except (TimeoutError, httpx.TimeoutException):
        if request.write and backend.request_sent:
            what = f"no answer within {request.timeout_s:g} seconds"
            raise http_words.outcome_unknown(name, where, what) from None
        raise http_words.timed_out(name, where, request.timeout_s) from None
    except httpx.HTTPError as exc:
        if request.write and backend.request_sent:
            what = f"the connection failed ({type(exc).__name__})"
            raise http_words.outcome_unknown(name, where, what) from None
        detail = f": {str(exc)[:200]}" if isinstance(exc, httpx.ConnectError) else ""
        raise http_words.unreachable(
            name, f"{where} failed ({type(exc).__name__}{detail})."
        ) from None
    document = _parse_json(name, where, raw)
    result = map_response(name, request.response, document)
    return redact(result, secrets)


def _check_status(name: str, where: str, status: int) -> None:
    if not 200 <= status < 300:
        raise http_words.status_error(name, where, status)


async def _read_capped(name: str, where: str, response: httpx.Response) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise http_words.unreadable_answer(
                name, f"The answer of {where} is over {MAX_RESPONSE_BYTES:,} bytes."
            )
        chunks.append(chunk)
    return b"".join(chunks)


def _parse_json(name: str, where: str, raw: bytes) -> Any:
    def refuse(constant: str) -> Any:
        raise ValueError(f"{constant} is not JSON")

    try:
        return json.loads(raw, parse_constant=refuse)
    except JSON_ERRORS as exc:
        raise http_words.unreadable_answer(
            name, f"The answer of {where} is not JSON: {json_problem(exc)}."
        ) from None
