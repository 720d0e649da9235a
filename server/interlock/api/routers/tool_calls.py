"""Decisions on tool calls."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Header

from interlock.api.deps import CurrentUser, EngineDep
from interlock.audit import Channel
from interlock.engine import DecisionIn, decide
from interlock.engine.records import view
from interlock.engine.runner import Engine
from interlock.storage import Database, ToolCall
from interlock.storage.views import ToolCallOut
from interlock.store import redo_call, undo_call
from interlock.tools import ToolRegistry

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


_UNDO_RESPONSES: dict[int | str, dict[str, str]] = {
    404: {"description": "unknown or not yours"},
    409: {
        "description": "not_undoable (a read call), already_undone / not_undone, or "
        "undo_conflict: a later call changed the same data (details.conflicts names it)"
    },
}


@router.post("/{tool_call_id}/undo", responses=_UNDO_RESPONSES)
async def post_undo(tool_call_id: str, user: CurrentUser, engine: EngineDep) -> ToolCallOut:
    """Put back what a write call changed, in one transaction; the model hears of it next turn."""
    return await engine.db.run(_step, engine, undo_call, user.id, tool_call_id)


@router.post("/{tool_call_id}/redo", responses=_UNDO_RESPONSES)
async def post_redo(tool_call_id: str, user: CurrentUser, engine: EngineDep) -> ToolCallOut:
    """Apply an undone call's changes again, in one transaction."""
    return await engine.db.run(_step, engine, redo_call, user.id, tool_call_id)


def _step(
    engine: Engine,
    step: Callable[[Database, ToolRegistry, str, str], ToolCall],
    user_id: str,
    tool_call_id: str,
) -> ToolCallOut:
    """Run ``undo_call``/``redo_call`` and return the call's view (on a database thread)."""
    call = step(engine.db, engine.registry, user_id, tool_call_id)
    with engine.db.session() as session:
        return view(session, engine.registry, call)
