"""Interlock as an MCP server: Streamable HTTP at ``/mcp`` in the API's own app.

One connection acts for one person (the bearer token: an MCP token of that person, see
:mod:`interlock.storage.tokens`, or their own API token, see
:func:`interlock.api.deps.authenticate`; none, unknown or revoked answers 401 with the usual
JSON error; every request authenticates again, so a revoked token stops at its next request)
through one employee (query parameter ``employee`` or header ``X-Interlock-Employee``; the
general assistant by default). It lists the tools that person may use through that
employee (never a ``DENY`` one), shaped by the query parameters ``exposition`` (``flat`` |
``grouped``), ``tags`` / ``any_tags`` / ``exclude_tags`` and ``read_only``
(:mod:`interlock.mcp_bridge.exposition`; 422 ``invalid_mcp_option`` for a bad one). Every
``tools/call`` goes through the chat's gate (:mod:`interlock.mcp_bridge.gate`).

Requests must name an allowed host (loopback names, or ``mcp_allowed_hosts`` behind a proxy;
421 ``host_not_allowed`` otherwise) and, when a browser sends ``Origin``, an allowed origin
(403 ``origin_not_allowed``): a web page cannot reach a local server through DNS rebinding.
The MCP library's own host check is off because it only knows fixed host names.

Who a request acts for (:class:`Caller`) and the client's readable name are in
:mod:`interlock.mcp_bridge.callers`.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from typing import Any, cast

import mcp_types as types
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from starlette.requests import ClientDisconnect, Request
from starlette.types import Message, Receive, Scope, Send

from interlock import __version__
from interlock.api.deps import authenticate, host_of, is_loopback
from interlock.api.services import Services
from interlock.employees import DEFAULT_EMPLOYEE
from interlock.errors import JSONRPC_INVALID_REQUEST, InterlockError, jsonrpc_error_body
from interlock.mcp_bridge.bodies import message_problem, replaying
from interlock.mcp_bridge.callers import (
    CALLER_KEY,
    LEFT_KEY,
    SESSION_HEADER,
    UNNAMED_CLIENT,
    Caller,
    caller_of,
    client_name,
    left_event,
    readable_name,
    session_id,
)
from interlock.mcp_bridge.exposition import Exposition, shown
from interlock.mcp_bridge.gate import Elicit, call_tool, error_result
from interlock.mcp_bridge.options import ListingOptions, parse_listing_options
from interlock.mcp_bridge.rounds import answer_in
from interlock.settings import Settings
from interlock.tools import Tool

__all__ = [
    "CALLER_KEY",
    "EMPLOYEE_HEADER",
    "LEFT_KEY",
    "SESSION_HEADER",
    "UNNAMED_CLIENT",
    "Caller",
    "McpEndpoint",
    "client_name",
    "readable_name",
]

EXPOSITIONS_KEPT = 32
"""Built expositions kept for reuse (distinct tool sets and options in use at once)."""
EMPLOYEE_HEADER = "x-interlock-employee"
INSTRUCTIONS = (
    "Interlock runs these tools for a person. Tools that change things may need the person's "
    "approval: the call then waits (up to a limit) and may come back rejected, edited or "
    "expired; do not retry a call the person rejected unless they ask for it."
)


class McpEndpoint:
    """The ASGI app answering ``/mcp``; run :meth:`run` inside the app's lifespan.

    Args:
        settings: Server settings (hosts, origins, approval channel).
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.server: Server[Any] = Server(
            "interlock",
            version=__version__,
            title="Interlock",
            instructions=INSTRUCTIONS,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )
        self.manager = StreamableHTTPSessionManager(
            app=self.server,
            security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self._services: Services | None = None
        self._expositions: OrderedDict[
            tuple[tuple[int, ...], ListingOptions], tuple[tuple[Tool, ...], Exposition]
        ] = OrderedDict()

    @asynccontextmanager
    async def run(self, services: Services) -> AsyncIterator[None]:
        """Serve MCP sessions until the block ends (the app's lifespan)."""
        self._services = services
        async with self.manager.run():
            try:
                yield
            finally:
                # Requests still waiting are cut off by the shutdown, not left by their callers.
                services.engine.outside.stopping = True
        self._services = None

    # -- HTTP ------------------------------------------------------------------------------
    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        services = self._services
        if scope["type"] != "http" or services is None:
            await _error(send, 503, "unavailable", "The MCP endpoint is not running.")
            return
        request = Request(scope, receive)
        refusal = self._refusal(request)
        if refusal is not None:
            await _error(send, *refusal)
            return
        try:
            principal = await authenticate(request, services)
        except InterlockError as exc:
            await _error(send, exc.status, exc.code, exc.message, bearer=exc.status == 401)
            return
        slug = (
            request.query_params.get("employee")
            or request.headers.get(EMPLOYEE_HEADER)
            or DEFAULT_EMPLOYEE
        )
        employee = await services.db.run(services.employees.get, slug)
        if employee is None:
            await _error(send, 404, "not_found", f"No employee {shown(slug)} to act through.")
            return
        if employee.disabled:
            message = f"{employee.name} is disabled; nothing runs."
            await _error(send, 409, "employee_disabled", message)
            return
        try:
            options = parse_listing_options(request.query_params)
        except InterlockError as exc:
            await _error(send, exc.status, exc.code, exc.message)
            return
        user = principal.user
        scope[CALLER_KEY] = Caller(
            user_id=user.id,
            employee=employee.slug,
            options=options,
            token_name=principal.token_name,
        )
        # Sessions belong to the user who opened them (the library compares this principal).
        scope["user"] = AuthenticatedUser(AccessToken(token="", client_id=user.id, scopes=[]))
        if request.method == "POST":
            try:
                body = await request.body()
            except ClientDisconnect:
                return  # nobody is left to answer
            problem = message_problem(body)
            if problem is not None:
                rpc_code, words = problem
                await _error(send, 400, "invalid_request", words, rpc_code=rpc_code)
                return
            receive = replaying(body, receive)
        left = scope[LEFT_KEY] = asyncio.Event()

        async def watched() -> Message:
            # The request's SSE response reads the disconnect; the waiting call hears of it.
            message = await receive()
            if message["type"] == "http.disconnect":
                left.set()
            return message

        await self.manager.handle_request(scope, watched, send)

    def _refusal(self, request: Request) -> tuple[int, str, str] | None:
        """Why the request's hosts or ``Origin`` are not accepted, or None.

        Every host the request names must be loopback or allowed: ``Host``, and, behind a
        reverse proxy that rewrites ``Host``, the ``X-Forwarded-Host`` it passes on (each
        value of a list). A browser ``Origin`` must be loopback, listed in
        ``mcp_allowed_origins``, or on an explicitly allowed host (``*`` admits hosts only).
        """
        explicit = {h.lower() for h in self.settings.mcp_allowed_hosts if h != "*"}
        if self.settings.host not in ("0.0.0.0", "::", ""):
            explicit.add(self.settings.host.lower())
        any_host = "*" in self.settings.mcp_allowed_hosts
        named = [request.headers.get("host", "")]
        forwarded = request.headers.get("x-forwarded-host")
        if forwarded is not None:
            named += forwarded.split(",")
        for value in named:
            host = host_of(value.strip()).lower()
            if not (is_loopback(host) or host in explicit or any_host):
                shown = host[:100]
                return 421, "host_not_allowed", f"This server does not answer MCP for {shown!r}."
        origin = request.headers.get("origin")
        if origin is None:
            return None
        origin_host = host_of(origin).lower()
        if (
            is_loopback(origin_host)
            or origin.rstrip("/") in self.settings.mcp_allowed_origins
            or origin_host in explicit
        ):
            return None
        shown = origin[:200]
        return 403, "origin_not_allowed", f"Requests from the web page at {shown} are refused."

    # -- MCP -------------------------------------------------------------------------------
    async def _exposition(self, caller: Caller) -> Exposition:
        """The connection's tools: what the person may use through the employee, filtered.

        Building one is CPU work that grows with the tools (about 0.14 ms a tool: 70 ms for 500
        on the development machine), and every list and call needs one: the last
        :data:`EXPOSITIONS_KEPT` are kept, keyed by the offered tool objects (a registry
        refresh makes new ones) and the options.
        """
        services = self._require()
        employee = await services.db.run(services.engine.employee_of, caller.employee)
        plan = await services.db.run(services.engine.outside.plan, caller.user_id, employee)
        key = (tuple(id(t) for t in plan.offered), caller.options)
        kept = self._expositions.get(key)
        if kept is not None and all(a is b for a, b in zip(kept[0], plan.offered, strict=True)):
            self._expositions.move_to_end(key)
            return kept[1]
        exposition = Exposition(plan.offered, caller.options)
        # The tools are kept with it, so their ids in the key cannot be reused meanwhile.
        self._expositions[key] = (tuple(plan.offered), exposition)
        while len(self._expositions) > EXPOSITIONS_KEPT:
            self._expositions.popitem(last=False)
        return exposition

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        try:
            exposition = await self._exposition(caller_of(ctx))
            return exposition.list_page(
                params.cursor if params is not None else None, self.settings.mcp_page_size
            )
        except InterlockError as exc:
            raise MCPError(code=INVALID_PARAMS, message=f"[{exc.code}] {exc.message}") from None

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        """Any Interlock error (``database_busy`` too) is an ``is_error`` result with its code,
        never a protocol error."""
        try:
            return await self._call(ctx, params)
        except InterlockError as exc:
            return error_result(exc.code, exc.message)

    async def _call(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        services = self._require()
        caller = caller_of(ctx)
        exposition = await self._exposition(caller)
        structure: Callable[[Any], dict[str, Any] | None] | None = None
        try:
            resolved = exposition.resolve(params.name, params.arguments)
        except InterlockError as exc:
            denied = self._denied(params.name, caller)
            if denied is None:
                return error_result(exc.code, exc.message)
            # A tool the person may not use here: refused by the gate and recorded, as a
            # model's call to it would be.
            tool_name, args = denied, dict(params.arguments or {})
        else:
            tool_name, args = resolved.tool.name, resolved.arguments
            if exposition.declares_output(resolved):
                structure = partial(exposition.structured_content, resolved)
        return await call_tool(
            services.engine,
            user_id=caller.user_id,
            employee_slug=caller.employee,
            client_name=client_name(ctx, caller.token_name),
            tool_name=tool_name,
            args=args,
            elicit=self._elicitor(ctx, caller),
            structure=structure,
            ask_in_round=self._asks_in_rounds(ctx, caller),
            answer=answer_in(params.input_responses) if self._client_decides(caller) else None,
            left=left_event(ctx),
            mcp_session=session_id(ctx),
        )

    def _denied(self, name: str, caller: Caller) -> str | None:
        """The registered tool an unlisted flat name stands for, when the filters admit it
        (so it is missing because the person may not use it here)."""
        tool = self._require().registry.by_provider_name(name)
        if tool is None or not caller.options.admits(tool):
            return None
        return tool.name

    def _client_decides(self, caller: Caller) -> bool:
        """Whether the MCP client may answer approvals: the setting allows it and the
        connection holds the person's own token. An MCP token's holder never decides (its
        answers to questions it was not asked are ignored too): that would be the agent
        program approving its own calls, which the token's scope exists to prevent."""
        return self.settings.mcp_approval_channel != "web" and caller.token_name is None

    def _elicitor(self, ctx: ServerRequestContext[Any], caller: Caller) -> Elicit | None:
        """Asks in the MCP client when it may decide (:meth:`_client_decides`) and can."""
        if not self._client_decides(caller):
            return None
        session = ctx.session
        capabilities = session.client_capabilities
        if capabilities is None or capabilities.elicitation is None:
            return None
        if not session.can_send_request:
            return None

        async def ask(message: str, schema: dict[str, Any]) -> types.ElicitResult:
            return await session.elicit_form(
                message, cast(Any, schema), related_request_id=ctx.request_id
            )

        return ask

    def _asks_in_rounds(self, ctx: ServerRequestContext[Any], caller: Caller) -> bool:
        """Whether to ask through an ``input_required`` round (:mod:`.rounds`): a 2026-07-28
        connection (no back channel) whose client supports elicitation and may decide."""
        session = ctx.session
        capabilities = session.client_capabilities
        return (
            self._client_decides(caller)
            and not session.can_send_request
            and ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
            and capabilities is not None
            and capabilities.elicitation is not None
        )

    def _require(self) -> Services:
        assert self._services is not None, "the MCP endpoint runs inside the app's lifespan"
        return self._services


async def _error(
    send: Send,
    status: int,
    code: str,
    message: str,
    *,
    bearer: bool = False,
    rpc_code: int = JSONRPC_INVALID_REQUEST,
) -> None:
    """Answer with the error as a JSON-RPC error body (:func:`interlock.errors.jsonrpc_error_body`:
    Interlock's code in ``error.message`` and ``error.data.code``; ``rpc_code`` its JSON-RPC
    code), which MCP clients show; the app's guard middleware adds the security headers."""
    error = InterlockError(message, code=code)
    payload = json.dumps(jsonrpc_error_body(error, rpc_code)).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
    ]
    if bearer:
        headers.append((b"www-authenticate", b'Bearer realm="interlock"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
