"""The signed-in person's access tokens (:mod:`interlock.storage.tokens`): create, list, revoke.

An MCP token (scope ``mcp``) is what an MCP client should hold instead of the person's own
token: it works at ``/mcp`` only, so the agent program cannot decide its own tool calls. These
routes need the person's own token (or the implied local user); an MCP token gets 403
``token_scope`` here as everywhere outside ``/mcp``. Creating and revoking are logged and
audited (a ``token`` record, in the same transaction); the token row keeps
``created_at``/``revoked_at``.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Header, status
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlmodel import Session

from interlock.api.deps import CurrentUser, DbDep
from interlock.api.errors import ERROR_RESPONSES
from interlock.audit import Channel, TokenOutcome, record_token_event
from interlock.request_body import RequestBody
from interlock.storage import AccessToken
from interlock.storage.models import as_utc
from interlock.storage.tokens import (
    MAX_TOKEN_NAME_LENGTH,
    TokenAudit,
    create_access_token,
    list_access_tokens,
    revoke_access_token,
)
from interlock.text import no_control_characters

router = APIRouter(prefix="/api/tokens", tags=["tokens"], responses=ERROR_RESPONSES)
log = logging.getLogger(__name__)


class TokenIn(RequestBody):
    name: str = Field(
        min_length=1,
        max_length=MAX_TOKEN_NAME_LENGTH,
        description="What you call the client holding it, e.g. 'Claude Desktop'.",
    )
    scope: Literal["mcp"] = "mcp"

    _no_controls = field_validator("name", mode="before")(no_control_characters)


class TokenOut(BaseModel):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    id: str
    name: str
    scope: Literal["mcp"]
    created_at: datetime
    last_used_at: datetime | None = Field(
        default=None, description="Last request made with it (to within a minute)."
    )
    revoked_at: datetime | None = None


class TokenCreatedOut(TokenOut):
    token: str = Field(description="The token itself, shown only in this answer.")


def _out(row: AccessToken) -> TokenOut:
    return TokenOut(
        id=row.id,
        name=row.name,
        scope="mcp",
        created_at=as_utc(row.created_at),
        last_used_at=as_utc(row.last_used_at) if row.last_used_at else None,
        revoked_at=as_utc(row.revoked_at) if row.revoked_at else None,
    )


@router.get("")
async def list_tokens(user: CurrentUser, db: DbDep) -> list[TokenOut]:
    """Your access tokens, newest first, revoked ones included (never the tokens themselves)."""
    return [_out(row) for row in await db.run(list_access_tokens, db, user.id)]


def _audited(user_id: str, client: str | None, outcome: TokenOutcome) -> TokenAudit:
    """The audit record of what ``user_id`` did (channel ``web`` for the web client)."""
    channel = Channel.web if client == "web" else Channel.api

    def audit(session: Session, row: AccessToken) -> None:
        record_token_event(session, row, decider=user_id, channel=channel, outcome=outcome)

    return audit


ClientHeader = Annotated[str | None, Header()]


@router.post("", status_code=status.HTTP_201_CREATED)
async def create_token(
    body: TokenIn, user: CurrentUser, db: DbDep, x_interlock_client: ClientHeader = None
) -> TokenCreatedOut:
    """Create an access token for yourself; the answer holds the token, shown only this once
    (only its SHA-256 digest is stored). 409 ``too_many_tokens`` past 50 live tokens."""
    audit = _audited(user.id, x_interlock_client, TokenOutcome.created)
    row, token = await db.run(create_access_token, db, user.id, body.name, body.scope, audit)
    log.info("%s token %s (%r) created by user %s", row.scope, row.id, row.name, user.id)
    return TokenCreatedOut(**_out(row).model_dump(), token=token)


@router.post("/{token_id}/revoke")
async def revoke_token(
    token_id: str, user: CurrentUser, db: DbDep, x_interlock_client: ClientHeader = None
) -> TokenOut:
    """Revoke one of your tokens: the next request made with it is refused (401), on an open
    MCP session too. Revoking twice is harmless; another person's token is 404 ``not_found``."""
    audit = _audited(user.id, x_interlock_client, TokenOutcome.revoked)
    row = await db.run(revoke_access_token, db, token_id, user.id, audit)
    log.info("%s token %s (%r) revoked by user %s", row.scope, row.id, row.name, user.id)
    return _out(row)
