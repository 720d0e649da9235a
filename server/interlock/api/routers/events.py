"""The conversation's event stream (Server-Sent Events)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Request
from sqlalchemy import bindparam, select
from sse_starlette import ServerSentEvent

from interlock.api.deps import CurrentUser, services_of
from interlock.api.errors import ERROR_RESPONSES
from interlock.api.sse_response import EventStream
from interlock.engine import Engine
from interlock.errors import NotFound
from interlock.storage import Conversation
from interlock.streaming.event_rows import StoredEvent
from interlock.streaming.events import StreamEvent
from interlock.streaming.sse import REPLAY_BATCH, Opened, event_chunks, parse_last_event_id

router = APIRouter(prefix="/api/conversations", tags=["events"], responses=ERROR_RESPONSES)

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


@router.get(
    "/{conversation_id}/events",
    response_class=EventStream,
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
    request: Request,
    last_event_id: Annotated[str | None, Header()] = None,
) -> EventStream:
    """Stream events (``id:`` is the per-conversation sequence); ``Last-Event-ID`` replays.

    A ``Last-Event-ID`` past the last event replays nothing (live events follow); one that is
    not a whole number is refused (400 ``invalid_last_event_id``). Pings are SSE
    comments every ``ping_interval_s`` seconds. A client leaving does not stop a run.
    """
    services = services_of(request)
    engine, settings = services.engine, services.settings
    bus = engine.bus
    # Subscribed before storage is read (nothing committed in between is missed); the
    # ownership check, Last-Event-ID and the first replay are one database call.
    subscription = bus.subscribe(conversation_id)
    try:
        after, first = await engine.db.run(_open, engine, user.id, conversation_id, last_event_id)
    except BaseException:
        bus.unsubscribe(subscription)
        raise
    response = EventStream(
        event_chunks(bus, conversation_id, after, Opened(subscription, after, first)),
        headers=SSE_HEADERS,
        ping=settings.ping_interval_s,
        ping_message_factory=lambda: ServerSentEvent(comment="ping"),
    )
    response.on_close = lambda: bus.unsubscribe(subscription)
    return response


_conversations = Conversation.__table__  # type: ignore[attr-defined]
_OWNER_AND_SEQ = select(_conversations.c.owner_id, _conversations.c.last_event_seq).where(
    _conversations.c.id == bindparam("cid")
)
"""Prebuilt: what opening a stream reads of its conversation (a Core select of two columns,
not a loaded conversation)."""


def _open(
    engine: Engine, user_id: str, conversation_id: str, last_event_id: str | None
) -> tuple[int, list[StoredEvent]]:
    """Check the caller owns the conversation; read the events after ``Last-Event-ID``
    (database thread, one session).

    Returns:
        ``(sequence replayed after, the first batch of stored events)``.

    Raises:
        NotFound: Not the caller's conversation.
        MalformedHeader: ``invalid_last_event_id`` (see :func:`parse_last_event_id`).
    """
    with engine.db.session() as session:
        row = session.connection().execute(_OWNER_AND_SEQ, {"cid": conversation_id}).first()
        if row is None or row.owner_id != user_id:  # as Engine.owned_conversation
            raise NotFound("No such conversation.")
        last_seq = int(row.last_event_seq)
        after = parse_last_event_id(last_event_id, last_seq)
        first = (
            engine.bus.replay_in(session, conversation_id, after, REPLAY_BATCH)
            if last_seq > after
            else []
        )
    return after, first
