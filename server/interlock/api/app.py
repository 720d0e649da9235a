"""The FastAPI application: routers, error handlers, the web client, start-up and shutdown."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.routing import BaseRoute, Route

from interlock import __version__
from interlock.api.errors import ERROR_RESPONSES, install_error_handlers
from interlock.api.head import HeadAsGetMiddleware
from interlock.api.middleware import GuardMiddleware
from interlock.api.routers import (
    agui,
    approvals,
    audit,
    catalog,
    conversations,
    employees,
    events,
    mcp_servers,
    metrics,
    permissions,
    skills,
    tokens,
    tool_calls,
)
from interlock.api.services import Services
from interlock.employees.directory import EMPLOYEES_VERB
from interlock.engine.deletion import end_streams_of_deleted
from interlock.mcp_bridge.endpoint import MCP_PATHS, LazyMcpEndpoint
from interlock.mcp_bridge.sources import MCP_SERVERS_VERB
from interlock.settings import Settings
from interlock.streaming.listener import EventListener

CLIENT_MISSING = (
    "<!doctype html><title>Interlock</title><p>The web client is not built. "
    "Run <code>make run</code>, which builds <code>client-web/</code>.</p>"
)


def freeze_startup_objects() -> None:
    """Keep the long-lived objects of imports and start-up out of every later collection.

    Imports and start-up leave about 250,000 objects that live as long as the process;
    ``gc.freeze`` moves them out of the collector's sight, and the collector is turned back on.
    ``interlock serve`` turns the collector off before importing anything
    (:func:`interlock.cli.serve`): the full collections that imports would trigger cost about a
    third of a second of CPU per start (issue 7, benchmark f) and find a dozen objects, which
    are frozen with the rest. When the collector is on (an app started some other way),
    garbage is collected first so that none is frozen.

    The youngest generation is then collected every :data:`GC_YOUNG_THRESHOLD` allocations
    instead of Python's 700: a HITL cycle allocates tens of thousands of short-lived objects
    (rows, events, LangChain messages) that reference counting frees anyway, and each young
    collection walks the ones still alive at that moment (fewer collections: about 4% less
    server CPU per cycle in bench (a)); the older generations keep their ratios.
    """
    if gc.isenabled():
        gc.collect()
    gc.freeze()
    _young, older, oldest = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, older, oldest)
    gc.enable()


GC_YOUNG_THRESHOLD = 7_000
"""Allocations (of objects the collector tracks) between two collections of the youngest
generation, once the server has started (Python's default is 700)."""


def _control_handler(built: Services) -> Callable[[str, str], None]:
    """Route a control message from another process: remote MCP servers, employees, else the
    engine."""

    def on_control(verb: str, argument: str) -> None:
        if verb == MCP_SERVERS_VERB:
            built.mcp_sources.on_control(argument)
        elif verb == EMPLOYEES_VERB:
            built.employees.forget()
        else:
            built.engine.on_control(verb, argument)

    return on_control


def _refresh_handler(built: Services) -> Callable[[], None]:
    """What to refresh once listening again: control messages sent while this process's
    listening connection was down never arrive, so what they keep fresh is read again
    (employees, remote MCP servers, streams of deleted conversations; a cancel is also
    stored, and the run's worker finds it at its next heartbeat)."""

    def on_listening_again() -> None:
        built.employees.forget()
        built.mcp_sources.resync()
        built.engine.in_background(end_streams_of_deleted(built.engine))

    return on_listening_again


HOT_ROUTES = (
    ("POST", "/api/conversations"),
    ("POST", "/api/conversations/{conversation_id}/messages"),
    ("GET", "/api/conversations/{conversation_id}/events"),
    ("POST", "/api/tool-calls/{tool_call_id}/decision"),
)
"""The routes every HITL cycle requests (method, path), matched first: Starlette tries the
routes in order, and these sat at positions 14 to 45 (about 100 failed matches per cycle,
bench (a))."""


def _hot_routes_first(app: FastAPI) -> None:
    """Move :data:`HOT_ROUTES` to the front of ``app``'s routes, in that order.

    No request matches another route differently: no other route has one of these paths, and
    none of their paths matches another route's literal path (each ends in a literal segment
    of its own), so a request that one of them fully matches matches no other route. The
    OpenAPI document lists their paths first.
    """
    routes = app.router.routes
    hot: list[BaseRoute] = []
    for method, path in HOT_ROUTES:
        (found,) = (
            route
            for route in routes
            if isinstance(route, Route) and route.path == path and method in (route.methods or ())
        )
        hot.append(found)
    routes[:] = hot + [route for route in routes if route not in hot]


def create_app(settings: Settings | None = None, services: Services | None = None) -> FastAPI:
    """Build the app. Storage must already be migrated (``interlock serve`` does it).

    Args:
        settings: Settings; read from the environment when omitted.
        services: Prebuilt services (tests); built from ``settings`` when omitted.
    """
    settings = settings or (services.settings if services else Settings())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        built = services or Services.build(settings)
        app.state.services = built
        built.bus.bind_loop(asyncio.get_running_loop())
        listener: EventListener | None = None
        if not built.db.is_sqlite:  # live events and control messages between processes
            listener = EventListener(
                built.bus,
                built.db.url,
                _control_handler(built),
                on_listening_again=_refresh_handler(built),
            )
            await listener.start(wait_s=built.settings.db_lock_timeout_s)
            app.state.listener = listener
        await built.engine.recover()
        await built.mcp_sources.start()  # remote MCP servers connect in the background
        if services is None:  # a real server (tests pass their own services)
            freeze_startup_objects()
        try:
            async with mcp.run(built):
                yield
        finally:
            await built.mcp_sources.aclose()
            await built.engine.aclose()
            if listener is not None:
                await listener.aclose()
            if services is None:
                built.db.dispose()

    app = FastAPI(
        title="Interlock",
        version=__version__,
        lifespan=lifespan,
        responses=ERROR_RESPONSES,
    )
    install_error_handlers(app)
    app.add_middleware(
        GuardMiddleware,
        max_request_bytes=settings.max_request_bytes,
        body_timeout_s=settings.request_body_timeout_s,
        jsonrpc_paths=MCP_PATHS,
    )
    app.add_middleware(HeadAsGetMiddleware)
    # ``/mcp`` and ``/mcp/`` as Routes, not a Mount: neither redirects (MCP clients do not
    # follow redirects, and one built from ``Host`` is wrong behind a proxy).
    # The MCP library loads with the first request to /mcp, not at every start.
    mcp = LazyMcpEndpoint(settings)
    for path in sorted(MCP_PATHS):
        app.router.routes.append(
            Route(path, endpoint=mcp, methods=["GET", "POST", "DELETE"], include_in_schema=False)
        )
    for module in (
        agui,
        approvals,
        audit,
        catalog,
        conversations,
        employees,
        events,
        mcp_servers,
        metrics,
        permissions,
        skills,
        tokens,
        tool_calls,
    ):
        # The routes themselves, not ``include_router``: FastAPI builds every route of an
        # included router a second time at the first request (about 40 ms of a restart's
        # CPU, issue 7 benchmark f); the routers already carry the prefix, tags and
        # ``ERROR_RESPONSES`` an include would add.
        app.router.routes.extend(module.router.routes)
    _hot_routes_first(app)

    if (settings.client_dist / "index.html").is_file():
        app.mount("/", StaticFiles(directory=settings.client_dist, html=True), name="client")
    else:

        @app.get("/", include_in_schema=False)
        def client_missing() -> HTMLResponse:
            return HTMLResponse(CLIENT_MISSING)

    return app
