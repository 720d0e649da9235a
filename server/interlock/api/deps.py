"""FastAPI dependencies, as ``Annotated`` aliases used by the routers."""

from __future__ import annotations

import ipaddress
import time
from typing import Annotated

from fastapi import Depends, Request

from interlock.api.services import Services
from interlock.engine import Engine
from interlock.errors import Forbidden, Unauthorized
from interlock.settings import Settings
from interlock.storage import Database, User
from interlock.storage.tokens import Principal, principal_by_token
from interlock.storage.users import count_users, get_or_create_local_user


# Each dependency reads the app's state itself rather than through ``ServicesDep``: every
# level of nesting is another round of FastAPI's dependency solving, on every request.
async def get_services(request: Request) -> Services:
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.services.settings
    return settings


async def get_db(request: Request) -> Database:
    db: Database = request.app.state.services.db
    return db


async def get_engine(request: Request) -> Engine:
    engine: Engine = request.app.state.services.engine
    return engine


def services_of(request: Request) -> Services:
    """The app's services, read from ``request`` by the route itself.

    For the routes of every HITL cycle (new conversation, event stream, message, decision):
    taking ``request: Request`` (which FastAPI hands over as it is) instead of ``ServicesDep``,
    ``EngineDep`` or ``SettingsDep`` spares a round of dependency solving per dependency and
    request for what is the same object for the app's whole life.
    """
    services: Services = request.app.state.services
    return services


SettingsDep = Annotated[Settings, Depends(get_settings)]
DbDep = Annotated[Database, Depends(get_db)]
EngineDep = Annotated[Engine, Depends(get_engine)]


def host_of(value: str) -> str:
    """``localhost:8000`` -> ``localhost``; ``[::1]:8000`` -> ``::1``; ``http://x:1`` -> ``x``."""
    value = value.split("://", 1)[-1].split("/", 1)[0]
    if value.startswith("["):
        return value[1:].split("]", 1)[0]
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _addressed_to_loopback(request: Request) -> bool:
    """True when ``Host`` (and ``Origin``, if sent) name a loopback host.

    Without this a web page could reach the implied local user through DNS rebinding: its
    requests come from loopback but name the attacker's host.
    """
    host = request.headers.get("host", "")
    if not is_loopback(host_of(host)):
        return False
    origin = request.headers.get("origin")
    return origin is None or is_loopback(host_of(origin))


_LOOPBACK_SPELLINGS = frozenset({"localhost", "127.0.0.1", "::1"})
"""Loopback hosts as usually written (answered without parsing an address)."""


def is_loopback(host: str) -> bool:
    if host in _LOOPBACK_SPELLINGS:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def authenticate(request: Request, services: Services) -> Principal:
    """Return who sends ``request``, from ``Authorization: Bearer <token>``, any scope.

    The token is a person's own token or one of their access tokens
    (:mod:`interlock.storage.tokens`; a revoked one is unknown). With no users at all and a
    loopback bind (``INTERLOCK_HOST``), a request without a token is the implied local user
    ``local``. Routes use :func:`current_user`, which refuses scoped tokens; only ``/mcp``
    calls this directly.

    Raises:
        Unauthorized: Missing, unknown or revoked token (``unauthorized``).
    """
    db, settings = services.db, services.settings
    header = request.headers.get("authorization")
    if header:
        scheme, _, token = header.partition(" ")
        principal = (
            await db.run(principal_by_token, db, token.strip())
            if scheme.lower() == "bearer" and token.strip()
            else None
        )
        if principal is None and scheme.lower() != "bearer":
            # "Basic ..." or a bare token: not a bearer token that failed, a header to fix.
            raise Unauthorized(
                "Send the token as 'Authorization: Bearer <token>'; this request's "
                "Authorization header does not start with 'Bearer '."
            )
        if principal is None:
            raise Unauthorized("The bearer token is not valid.")
        return principal
    if (
        is_loopback(settings.host)
        and _addressed_to_loopback(request)
        and not await _token_users_exist(services)
    ):
        if services.local_user is None:
            services.local_user = await db.run(get_or_create_local_user, db)
        return Principal(user=services.local_user)
    raise Unauthorized(
        "Send 'Authorization: Bearer <token>' (interlock users create NAME prints one; "
        "interlock users token NAME a new one for an existing user)."
    )


async def current_user(request: Request) -> User:
    """Return the caller of an API route: a person's own token, or the implied local user.

    Raises:
        Unauthorized: Missing, unknown or revoked token (``unauthorized``).
        Forbidden: ``token_scope`` for an access token limited to another part (an MCP token
            works at ``/mcp`` only, so an agent holding it cannot decide its own tool calls).
    """
    principal = await authenticate(request, request.app.state.services)
    if principal.scope is not None:
        raise Forbidden(
            f"The token {principal.token_name!r} is for MCP clients: it works at /mcp only. "
            "Use your own token here.",
            code="token_scope",
        )
    return principal.user


CurrentUser = Annotated[User, Depends(current_user)]

USERS_RECHECK_S = 1.0
"""While no user exists, how often to look again (``interlock users create`` runs elsewhere)."""


async def _token_users_exist(services: Services) -> bool:
    """Whether any user with a token exists; once true it stays true (users are not removed)."""
    now = time.monotonic()
    if not services.token_users_exist and now - services.users_checked_at >= USERS_RECHECK_S:
        services.token_users_exist = await services.db.run(count_users, services.db) > 0
        services.users_checked_at = now
    return services.token_users_exist


async def admin_user(user: CurrentUser) -> User:
    """Return the caller when an admin.

    Raises:
        Forbidden: ``permission_denied`` for members.
    """
    if user.role != "admin":
        raise Forbidden("Only admins may do this.")
    return user


AdminUser = Annotated[User, Depends(admin_user)]
