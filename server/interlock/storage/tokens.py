"""Scoped access tokens: extra bearer tokens of a user that reach only part of the API.

A person's own token (:mod:`interlock.storage.users`) reaches everything they may do. An agent
program connected over MCP should not hold that token: with it the program could approve its
own tool calls through ``POST /api/tool-calls/{id}/decision``, and the approval gate would then
protect against the model but not against the program. An access token of scope ``mcp``
(:class:`~interlock.storage.models.TokenScope`) is accepted at ``/mcp`` only; every other route
refuses it (see :func:`interlock.api.deps.current_user`).

Tokens look like ``ilk_mcp_<43 URL-safe characters>`` (32 random bytes) so a person can tell
them from their own token. Only the SHA-256 hex digest is stored; the token is shown once.
A revoked token stops working on the next request that presents it (every request to ``/mcp``
authenticates again).

Functions take a :class:`~interlock.storage.db.Database` (they open a session and commit) and
run on the database thread pool (``await db.run(fn, ...)``).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import func
from sqlmodel import Session, col, select

from interlock.errors import BadRequest, Conflict, NotFound
from interlock.storage.db import Database
from interlock.storage.models import AccessToken, TokenScope, User, as_utc, utcnow
from interlock.storage.users import TOKEN_BYTES, hash_token, user_by_token
from interlock.text import one_line

TokenAudit = Callable[[Session, AccessToken], object]
"""Stages the audit record of a token's creation or revocation on the writing session."""

TOKEN_PREFIX = "ilk_"
MAX_TOKEN_NAME_LENGTH = 100
MAX_TOKENS_PER_USER = 50
"""Live (not revoked) tokens a person may hold at once."""
LAST_USED_RESOLUTION = timedelta(seconds=60)
"""``last_used_at`` is written at most this often per token, so use is not a write per request."""


@dataclass(frozen=True)
class Principal:
    """Who a bearer token stands for.

    Attributes:
        user: The token's user.
        scope: ``None`` for the user's own (full) token, else the access token's scope.
        token_id: The access token's id, ``None`` for the user's own token.
        token_name: The access token's name (``"Claude Desktop"``), ``None`` for the own token.
    """

    user: User
    scope: str | None = None
    token_id: str | None = None
    token_name: str | None = None


def create_access_token(
    db: Database,
    user_id: str,
    name: str,
    scope: str = TokenScope.mcp,
    audit: TokenAudit | None = None,
) -> tuple[AccessToken, str]:
    """Create an access token for ``user_id``.

    Args:
        db: Database (committed here).
        user_id: The owner (a person, or the implied local user).
        name: What the person calls it, 1 to 100 characters ("Claude Desktop"): one line
            (line breaks, tabs and control characters become spaces, runs of spaces one),
            stored as written otherwise, as a conversation's title is: a bidirectional
            override is kept, and shown as ``[U+202E]`` (:func:`~interlock.text.reveal_hidden`,
            the client's ``reveal``), not silently dropped.
        scope: A :class:`~interlock.storage.models.TokenScope` value.
        audit: Called with the session and the new row before the commit (the audit record,
            written in the same transaction).

    Returns:
        The stored token row and the token in clear, which is kept nowhere.

    Raises:
        BadRequest: Empty or long name, unknown scope (``invalid_request``).
        Conflict: The person already holds :data:`MAX_TOKENS_PER_USER` live tokens
            (``too_many_tokens``).
        NotFound: No such user.
    """
    cleaned = one_line(name, len(name), as_written=True)
    if not cleaned or len(cleaned) > MAX_TOKEN_NAME_LENGTH:
        raise BadRequest(f"A token's name has 1 to {MAX_TOKEN_NAME_LENGTH} characters.")
    if scope not in {s.value for s in TokenScope}:
        known = ", ".join(s.value for s in TokenScope)
        raise BadRequest(f"Unknown token scope {scope!r}: use {known}.")
    token = f"{TOKEN_PREFIX}{scope}_{secrets.token_urlsafe(TOKEN_BYTES)}"
    with db.session() as session:
        if session.get(User, user_id) is None:
            raise NotFound("No such user.")
        live = session.exec(
            select(func.count())
            .select_from(AccessToken)
            .where(AccessToken.user_id == user_id, col(AccessToken.revoked_at).is_(None))
        ).one()
        if int(live) >= MAX_TOKENS_PER_USER:
            raise Conflict(
                f"You already have {MAX_TOKENS_PER_USER} tokens; revoke one you no longer use.",
                code="too_many_tokens",
            )
        row = AccessToken(user_id=user_id, name=cleaned, scope=scope, token_hash=hash_token(token))
        session.add(row)
        if audit is not None:
            session.flush()  # the row's id, for the record
            audit(session, row)
        session.commit()
    return row, token


def list_access_tokens(db: Database, user_id: str | None = None) -> list[AccessToken]:
    """Return the access tokens of ``user_id`` (every user's when ``None``), newest first,
    revoked ones included."""
    with db.session() as session:
        statement = select(AccessToken).order_by(
            col(AccessToken.created_at).desc(), col(AccessToken.id)
        )
        if user_id is not None:
            statement = statement.where(AccessToken.user_id == user_id)
        return list(session.exec(statement).all())


def revoke_access_token(
    db: Database, token_id: str, user_id: str | None = None, audit: TokenAudit | None = None
) -> AccessToken:
    """Revoke a token at once; revoking a revoked token changes nothing.

    Args:
        db: Database (committed here).
        token_id: The token's id.
        user_id: Its owner; ``None`` (the command line) skips the ownership check.
        audit: Called with the session and the row before the commit, when the token is
            revoked now (not when it was already).

    Raises:
        NotFound: No such token, or not ``user_id``'s (existence is not revealed).
    """
    with db.session() as session:
        row = session.get(AccessToken, token_id)
        if row is None or (user_id is not None and row.user_id != user_id):
            raise NotFound("No such token.")
        if row.revoked_at is None:
            row.revoked_at = utcnow()
            session.add(row)
            if audit is not None:
                audit(session, row)
            session.commit()
        return row


def principal_by_token(db: Database, token: str) -> Principal | None:
    """Return who ``token`` stands for, or ``None`` for an unknown, revoked or empty token.

    A user's own token gives a :class:`Principal` without scope; a live access token gives its
    user with the token's scope, id and name, and records its use (``last_used_at``, at most
    every :data:`LAST_USED_RESOLUTION`).
    """
    if not token:
        return None
    if not token.startswith(TOKEN_PREFIX):
        user = user_by_token(db, token)
        return Principal(user=user) if user is not None else None
    with db.session() as session:
        row = session.exec(
            select(AccessToken).where(
                AccessToken.token_hash == hash_token(token), col(AccessToken.revoked_at).is_(None)
            )
        ).first()
        if row is None:
            return None
        user = session.get(User, row.user_id)
        if user is None:
            return None
        now = utcnow()
        if row.last_used_at is None or now - as_utc(row.last_used_at) >= LAST_USED_RESOLUTION:
            row.last_used_at = now
            session.add(row)
            session.commit()
        return Principal(user=user, scope=row.scope, token_id=row.id, token_name=row.name)
