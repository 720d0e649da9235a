"""The caller's permissions: "don't ask again" grants and "AI actions" switches."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Response

from interlock.api.deps import CurrentUser, EngineDep
from interlock.api.errors import ERROR_RESPONSES
from interlock.audit import Channel
from interlock.engine.oversight import (
    add_grant,
    list_grants,
    list_switches,
    remove_grant,
    switch_actions,
)
from interlock.permissions.shapes import ActionsIn, ActionsOut, GrantIn, GrantOut

router = APIRouter(prefix="/api", tags=["permissions"], responses=ERROR_RESPONSES)


@router.get("/grants")
async def get_grants(user: CurrentUser, engine: EngineDep) -> list[GrantOut]:
    """The caller's live grants (unrevoked, unexpired), newest first."""
    return await engine.db.run(list_grants, engine, user.id)


@router.post(
    "/grants",
    status_code=201,
    responses={
        404: {"description": "conversation or employee unknown or not yours"},
        422: {"description": "unknown tool, past or too distant expiry, tool not granted"},
    },
)
async def post_grant(body: GrantIn, user: CurrentUser, engine: EngineDep) -> GrantOut:
    """Make a grant: calls of the tool it covers run without asking until it expires."""
    return await engine.db.run(add_grant, engine, user.id, body)


@router.delete(
    "/grants/{grant_id}",
    status_code=204,
    responses={404: {"description": "unknown or not yours"}},
)
async def delete_grant(grant_id: str, user: CurrentUser, engine: EngineDep) -> Response:
    """Revoke a grant; the next call of its tool asks again."""
    await engine.db.run(remove_grant, engine, user.id, grant_id)
    return Response(status_code=204)


@router.get("/actions")
async def get_actions(user: CurrentUser, engine: EngineDep) -> list[ActionsOut]:
    """The caller's "AI actions" switch for every employee."""
    return await engine.db.run(list_switches, engine, user.id)


@router.put("/actions/{employee}", responses={404: {"description": "unknown employee"}})
async def put_actions(
    employee: str,
    body: ActionsIn,
    user: CurrentUser,
    engine: EngineDep,
    x_interlock_client: Annotated[str | None, Header()] = None,
) -> ActionsOut:
    """Turn AI actions on (for a bounded time) or off (waiting write calls are cancelled).

    The web client sends ``X-Interlock-Client: web``; the audit log names the channel from it.
    """
    channel = Channel.web if x_interlock_client == "web" else Channel.api
    return await switch_actions(engine, user.id, employee, body.on, channel)
