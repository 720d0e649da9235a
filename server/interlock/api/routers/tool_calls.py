"""Decisions on tool calls."""

from __future__ import annotations

from fastapi import APIRouter

from interlock.api.deps import CurrentUser, EngineDep
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
    tool_call_id: str, body: DecisionIn, user: CurrentUser, engine: EngineDep
) -> ToolCallOut:
    """Approve, edit, reject or respond to an interrupted call; the run resumes after the last one."""
    return await decide(engine, user.id, tool_call_id, body)
