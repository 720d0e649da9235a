"""The conversation's event stream (Server-Sent Events)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header
from sse_starlette import EventSourceResponse, ServerSentEvent

from interlock.api.deps import CurrentUser, EngineDep, SettingsDep
from interlock.streaming.events import StreamEvent
from interlock.streaming.sse import event_frames, parse_last_event_id

router = APIRouter(prefix="/api/conversations", tags=["events"])

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


class _EventStream(EventSourceResponse):
    """Only names the media type for OpenAPI (sse_starlette sets it per instance)."""

    media_type = "text/event-stream"


@router.get(
    "/{conversation_id}/events",
    response_class=_EventStream,
    # OpenAPI (and the web client's generated types): the schema is each frame's ``data``;
    # ``type: object`` replaces the ``string`` FastAPI gives a non-JSON response class.
    responses={
        200: {
            "model": StreamEvent,
            "description": "Server-Sent Events: `id:` is the event's `seq`, `event:` its "
            "`type`, `data:` the event as JSON (this schema).",
            "content": {"text/event-stream": {"schema": {"type": "object"}}},
        }
    },
)
async def stream_events(
    conversation_id: str,
    user: CurrentUser,
    engine: EngineDep,
    settings: SettingsDep,
    last_event_id: Annotated[str | None, Header()] = None,
) -> EventSourceResponse:
    """Stream events (``id:`` is the per-conversation sequence); ``Last-Event-ID`` replays.

    An unknown, future or garbage ``Last-Event-ID`` replays from the start. Pings are SSE
    comments every ``ping_interval_s`` seconds. A client leaving does not stop a run.
    """
    last_seq = await engine.db.run(engine.last_event_seq, user.id, conversation_id)
    after = parse_last_event_id(last_event_id, last_seq)
    return EventSourceResponse(
        event_frames(engine.bus, conversation_id, after),
        headers=SSE_HEADERS,
        ping=settings.ping_interval_s,
        ping_message_factory=lambda: ServerSentEvent(comment="ping"),
    )
