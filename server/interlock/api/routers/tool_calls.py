"""Decisions on tool calls."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header

from interlock.api.deps import CurrentUser, EngineDep
from interlock.audit import Channel
from interlock.engine import DecisionIn, decide
from interlock.storage.views import ToolCallOut

router = APIRouter(prefix="/api/tool-calls", tags=["tool calls"])


@router.post(
    "/{tool_call_id}/decision",
    responses={
        404: {"description": "unknown or not yours"},
        409: {"description": "not interrupted"},
    },
)
async def post_decision(
    tool_call_id: str,
    body: DecisionIn,
    user: CurrentUser,
    engine: EngineDep,
    x_interlock_client: Annotated[str | None, Header()] = None,
) -> ToolCallOut:
    """Approve, edit, reject or respond to an interrupted call; the run resumes after the last one.

    The web client sends ``X-Interlock-Client: web``; the audit log names the channel from it.
    """
    channel = Channel.web if x_interlock_client == "web" else Channel.api
    return await decide(engine, user.id, tool_call_id, body, channel)
