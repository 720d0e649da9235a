"""The AG-UI endpoint: ``POST /api/ag-ui/{conversation_id}`` (see :mod:`interlock.agui`)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from pydantic import ValidationError
from pydantic_core import PydanticSerializationError
from sse_starlette import ServerSentEvent

from interlock.api.deps import CurrentUser, EngineDep, SettingsDep
from interlock.api.errors import ERROR_RESPONSES
from interlock.api.sse_response import EventStream
from interlock.errors import BadRequest, pydantic_field_errors
from interlock.json_words import JSON_ERRORS
from interlock.streaming.sse import one_line_json
from interlock.text import clean_json, unpaired_surrogates

if TYPE_CHECKING:  # the AG-UI package loads with the first AG-UI request, not at every start
    from ag_ui.core import BaseEvent

router = APIRouter(prefix="/api/ag-ui", tags=["ag-ui"], responses=ERROR_RESPONSES)

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
# AG-UI clients split frames on a blank line made of "\n" only (sse_starlette's default is "\r\n").
SEP = "\n"

_BODY: dict[str, Any] = {
    "required": True,
    "content": {
        "application/json": {
            "schema": {
                "type": "object",
                "description": "An AG-UI RunAgentInput (protocol 1.0): threadId, runId and "
                "messages (the last one the person's new message), or resume: "
                "[{interruptId, status, payload?}] answering the interrupts the previous run "
                "ended with. Other fields are not read.",
                "required": ["threadId", "runId", "messages"],
            }
        }
    },
}


_JSON_ERROR: dict[str, Any] = {
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}
}


@router.post(
    "/{conversation_id}",
    response_class=EventStream,
    openapi_extra={"requestBody": _BODY},
    responses={
        200: {
            "description": "Server-Sent Events: each `data:` is one AG-UI event as JSON "
            "(RUN_STARTED ... RUN_FINISHED, or RUN_ERROR with Interlock's error code).",
            "content": {"text/event-stream": {"schema": {"type": "object"}}},
        },
        401: {"description": "unauthorized: no valid bearer token", **_JSON_ERROR},
        404: {"description": "not_found: unknown or not yours", **_JSON_ERROR},
        422: {
            "description": "invalid_request: the body is not a RunAgentInput (an unpaired "
            "UTF-16 surrogate in it: details.errors[].rule unpaired_surrogate)",
            **_JSON_ERROR,
        },
    },
)
async def run_agent(
    conversation_id: str,
    request: Request,
    user: CurrentUser,
    engine: EngineDep,
    settings: SettingsDep,
) -> EventStream:
    """Run the conversation's employee for an AG-UI client: a new message, or a resume.

    The conversation's owner only (404 for anyone else). A body that is not a
    ``RunAgentInput`` is 422 ``invalid_request`` (one holding an unpaired UTF-16 surrogate,
    ``"\\ud800"``, which is no character: says where, rule ``unpaired_surrogate``); every
    later refusal (a ``threadId`` other
    than ``conversation_id``, a bad resume, calls still waiting, a run already active) is a
    ``RUN_ERROR`` event with Interlock's code, and nothing is written.
    """
    from ag_ui.core import RunAgentInput

    from interlock.agui import agui_events

    await engine.db.run(engine.last_event_seq, user.id, conversation_id)  # ownership: 404
    body = await request.body()
    try:
        run_input = RunAgentInput.model_validate_json(body)
    except ValidationError as exc:
        _refuse_surrogates(body)
        raise BadRequest(
            "The body is not an AG-UI RunAgentInput.",
            code="invalid_request",
            details={
                "errors": pydantic_field_errors(exc.errors(include_url=False, include_input=False))
            },
        ) from None
    events = await agui_events(engine, user.id, conversation_id, run_input)
    return EventStream(
        _frames(events),
        headers=SSE_HEADERS,
        ping=settings.ping_interval_s,
        ping_message_factory=lambda: ServerSentEvent(comment="ping", sep=SEP),
        sep=SEP,
    )


def _refuse_surrogates(body: bytes) -> None:
    """Refuse a body whose JSON spells an unpaired UTF-16 surrogate, saying where.

    The strict JSON reader calls ``"\\ud800"`` only "invalid JSON" (or "unexpected end of hex
    escape"); Python's own reader takes it, so a body it reads is looked through for the
    string holding one. Only on the refusal path: a valid body is read once.

    Raises:
        BadRequest: ``invalid_request``, ``details.errors`` with rule ``unpaired_surrogate``.
    """
    try:
        value = json.loads(body)
    except JSON_ERRORS:
        return  # not JSON at all: the strict reader's error says so
    places = unpaired_surrogates(value)
    if not places:
        return
    where = "/".join(map(str, places[0]))
    message = (
        f"The body holds an unpaired UTF-16 surrogate (at {where}), which is no character: "
        "send whole characters (a surrogate pair, or the character itself in UTF-8)."
    )
    raise BadRequest(
        message,
        code="invalid_request",
        details={
            "errors": [
                {
                    "path": list(path),
                    "message": "An unpaired UTF-16 surrogate is no character.",
                    "rule": "unpaired_surrogate",
                }
                for path in places
            ]
        },
    )


def _frame(event: BaseEvent) -> ServerSentEvent:
    """One event as an SSE frame; text that is not UTF-8 (a lone surrogate) is sent as U+FFFD."""
    try:
        data = event.model_dump_json(by_alias=True)
    except PydanticSerializationError:  # never a broken stream: replace, as storage does
        data = json.dumps(clean_json(event.model_dump(mode="json", by_alias=True)))
    return ServerSentEvent(data=one_line_json(data), sep=SEP)


async def _frames(events: AsyncIterator[BaseEvent]) -> AsyncIterator[ServerSentEvent]:
    async for event in events:
        yield _frame(event)
