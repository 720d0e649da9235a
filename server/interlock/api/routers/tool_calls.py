"""Decisions on tool calls, and their whole outputs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Header, Request
from fastapi.responses import PlainTextResponse

from interlock.api.deps import CurrentUser, EngineDep, services_of
from interlock.api.errors import ERROR_RESPONSES
from interlock.audit import Channel
from interlock.engine import DecisionIn, decide
from interlock.engine.client_results import ClientResultIn, submit_result
from interlock.engine.records import view
from interlock.engine.runner import Engine
from interlock.errors import NotFound
from interlock.storage import Conversation, Database, ToolCall, ToolOutput
from interlock.storage.views import ToolCallOut
from interlock.store import redo_call, undo_call
from interlock.tools import ToolRegistry

router = APIRouter(prefix="/api/tool-calls", tags=["tool calls"], responses=ERROR_RESPONSES)


@router.post(
    "/{tool_call_id}/decision",
    responses={
        403: {"description": "approver_required"},
        404: {"description": "unknown or not yours"},
        409: {"description": "not_interrupted, already_approved or actions_off"},
        422: {
            "description": "invalid_args (details.errors), cannot_remember, "
            "edit_needs_one_approval (a call needing several approvals is not edited), "
            "or a malformed body"
        },
    },
)
async def post_decision(
    tool_call_id: str,
    body: DecisionIn,
    user: CurrentUser,
    request: Request,
    x_interlock_client: Annotated[str | None, Header()] = None,
) -> ToolCallOut:
    """Approve, edit, reject or respond to an interrupted call; the run resumes after the last one.

    The web client sends ``X-Interlock-Client: web``; the audit log names the channel from it.
    """
    channel = Channel.web if x_interlock_client == "web" else Channel.api
    return await decide(services_of(request).engine, user.id, tool_call_id, body, channel)


@router.get(
    "/{tool_call_id}/output",
    response_class=PlainTextResponse,
    responses={
        200: {"content": {"text/plain": {"schema": {"type": "string"}}}},
        404: {"description": "unknown, not yours, or no output"},
    },
)
def get_output(tool_call_id: str, user: CurrentUser, engine: EngineDep) -> PlainTextResponse:
    """The whole text output of a call (``result_text`` may be cut: see ``result_cut``)."""
    with engine.db.session() as session:
        call = session.get(ToolCall, tool_call_id)
        conversation = session.get(Conversation, call.conversation_id) if call else None
        if call is None or conversation is None or conversation.owner_id != user.id:
            raise NotFound("No such tool call.")
        whole = session.get(ToolOutput, call.id) if call.result_cut else None
        text = whole.text if whole is not None else call.result_text
    if text is None:
        raise NotFound("This tool call has no output.", code="no_output")
    return PlainTextResponse(text, media_type="text/plain; charset=utf-8")


@router.post(
    "/{tool_call_id}/result",
    responses={
        404: {"description": "unknown or not yours"},
        409: {"description": "not_frontend, or not_awaiting_result (details.status)"},
        413: {"description": "payload_too_large"},
        422: {"description": "invalid_output (details.errors) or a malformed body"},
    },
)
async def post_result(
    tool_call_id: str,
    body: ClientResultIn,
    request: Request,
    user: CurrentUser,
    engine: EngineDep,
) -> ToolCallOut:
    """The browser's result of a frontend call (``awaiting_client``); the run then resumes."""
    size = len(await request.body())
    return await submit_result(engine, user.id, tool_call_id, body, size)


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
