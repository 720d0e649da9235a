"""Conversations and their messages."""

from __future__ import annotations

import unicodedata
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response, status
from pydantic import BaseModel, Field, field_validator
from sqlalchemy import insert, or_, update
from sqlmodel import col, select

from interlock.api.conversation_pages import (
    DEFAULT_LIMIT,
    MAX_LIMIT,
    NEXT_CURSOR_HEADER,
    conversation_page,
)
from interlock.api.deps import CurrentUser, DbDep, EngineDep, SettingsDep, services_of
from interlock.api.errors import ERROR_RESPONSES
from interlock.api.services import Services
from interlock.api.summaries import summaries, summary
from interlock.employees import DEFAULT_EMPLOYEE
from interlock.engine import deletion
from interlock.engine.commands import CommandClaim
from interlock.engine.current_cards import describe_now, with_current
from interlock.engine.records import approvals_of, view, waiting_for_person
from interlock.engine.recovery import SERVER_RESTARTED
from interlock.engine.runner import Engine
from interlock.errors import BadRequest, Conflict, NotFound
from interlock.models import describe_model
from interlock.request_body import RequestBody
from interlock.settings import Settings
from interlock.storage import (
    Conversation,
    Decision,
    Message,
    Run,
    RunStatus,
    ToolCall,
)
from interlock.storage.models import utcnow
from interlock.storage.rows import new_row
from interlock.storage.views import ConversationSummary, MessageOut, ToolCallOut, message_out
from interlock.storage.write_behind import defer
from interlock.streaming.event_rows import draft_start
from interlock.text import check_storable, is_blank, no_control_characters, one_line

router = APIRouter(prefix="/api/conversations", tags=["conversations"], responses=ERROR_RESPONSES)

MAX_TITLE_CHARS = 200
_LINE_BREAKING = frozenset({"Cc", "Zl", "Zp"})  # controls (tabs, line breaks) and U+2028/9


class ConversationCreate(RequestBody):
    employee: str | None = Field(default=None, max_length=100)

    @field_validator("employee")
    @classmethod
    def _storable(cls, value: str | None) -> str | None:
        return check_storable(value)  # type: ignore[no-any-return]


class MessageCreate(RequestBody):
    """A user message: 1 byte to 32 kB of UTF-8 text (``max_message_bytes``), no control
    character but tab and line breaks (:func:`no_control_characters`)."""

    content: str
    command: CommandClaim | None = None

    _no_controls = field_validator("content", mode="before")(no_control_characters)

    @field_validator("content")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if is_blank(value):  # spaces, zero-width spaces, bidi marks: nothing to read
            raise ValueError("The message is empty: write something to send.")
        return str(check_storable(value))


class ConversationUpdate(RequestBody):
    """A rename: ``title`` is one visible line of 1 to 200 characters.

    Control characters (:func:`no_control_characters` first: Escape, Bell...) and line or
    paragraph separators are refused; runs of spaces become one, as for a title taken from
    the first message (:func:`one_line`). Format characters (a bidi override, a zero-width
    space) are kept as written, as the README's rule says, and shown as ``[U+202E]`` wherever
    the title is read. A title with nothing visible is refused as empty.
    """

    title: str

    _no_controls = field_validator("title", mode="before")(no_control_characters)

    @field_validator("title")
    @classmethod
    def _clean_title(cls, value: str) -> str:
        check_storable(value)
        if any(unicodedata.category(c) in _LINE_BREAKING for c in value):
            raise ValueError("The title must be one line, without line breaks or tabs.")
        title = one_line(value, len(value), as_written=True)
        if not title:
            raise ValueError("The title is empty: write a name for the conversation.")
        if len(title) > MAX_TITLE_CHARS:
            raise ValueError(f"The title must have at most {MAX_TITLE_CHARS} characters.")
        return title


class MessageAccepted(BaseModel):
    run_id: str
    message_id: int


class ModelInfo(BaseModel):
    name: str
    offline: bool


class ConversationDetail(ConversationSummary):
    model: ModelInfo
    last_event_seq: int
    draft_after_seq: int = Field(
        description="Where the reply being written now starts in the event stream: open the "
        "stream after this seq (not after last_event_seq) to show that reply from its first "
        "word. Equal to last_event_seq when no reply is being written."
    )
    messages: list[MessageOut]
    stopped_runs: list[str] = Field(
        default_factory=list,
        description="Ids of this conversation's runs the person stopped (ended cancelled): "
        "their replies are shown as stopped.",
    )
    restarted_runs: list[str] = Field(
        default_factory=list,
        description="Ids of this conversation's runs cut short because the server stopped "
        "(ended failed, server_restarted): their replies are shown as cut off.",
    )


class CancelResult(BaseModel):
    cancelled_run_id: str | None


@router.post("", status_code=status.HTTP_201_CREATED)
async def create_conversation(
    body: ConversationCreate, user: CurrentUser, request: Request
) -> ConversationSummary:
    """Start a conversation with an employee (the default one when omitted)."""
    services = services_of(request)
    conversation = await services.db.run(_create, services, user.id, body.employee)
    # New: nothing runs or waits in it yet (no need to count its pending calls).
    return ConversationSummary(
        id=conversation.id,
        title=conversation.title,
        employee=conversation.employee,
        status="idle",
        pending=0,
        channel="chat",
        created_at=conversation.created_at,
        updated_at=conversation.updated_at,
    )


_INSERT_CONVERSATION = insert(Conversation.__table__)  # type: ignore[attr-defined]


def _create(services: Services, user_id: str, slug: str | None) -> Conversation:
    """Check the employee and insert the conversation (database thread; a Core insert).

    Raises:
        BadRequest: ``unknown_reference`` for an unknown employee.
        Conflict: ``employee_disabled``.
    """
    slug = slug or DEFAULT_EMPLOYEE
    employee = services.employees.named(slug)
    if employee.disabled:
        raise Conflict(f"{employee.name} is disabled.", code="employee_disabled")
    conversation = new_row(Conversation, owner_id=user_id, employee=slug)
    with services.db.session() as session:
        # Nothing reads its result: on PostgreSQL it goes out with the COMMIT, in one round
        # trip (storage.write_behind).
        defer(session, _INSERT_CONVERSATION, conversation.model_dump())
        session.commit()
    return conversation


@router.get(
    "",
    responses={
        200: {
            "headers": {
                NEXT_CURSOR_HEADER: {
                    "description": "The `cursor` of the next page; absent on the last page.",
                    "schema": {"type": "string"},
                }
            }
        },
        422: {"description": "`invalid_cursor`: a cursor this server did not give out"},
    },
)
def list_conversations(
    user: CurrentUser,
    db: DbDep,
    response: Response,
    limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT,
    cursor: str | None = None,
) -> list[ConversationSummary]:
    """The caller's conversations, most recently active first, ``limit`` at a time.

    The ``Next-Cursor`` response header holds the ``cursor`` of the next page (absent on the
    last page); a page starts right after the last conversation of the one before, so new
    conversations do not shift it.
    """
    with db.session() as session:
        rows, following = conversation_page(session, user.id, limit, cursor)
        if following is not None:
            response.headers[NEXT_CURSOR_HEADER] = following
        return summaries(session, rows)


@router.get("/{conversation_id}")
async def get_conversation(
    conversation_id: str, user: CurrentUser, engine: EngineDep, settings: SettingsDep
) -> ConversationDetail:
    """Everything a client needs after a reload: messages, tool calls, decisions, status.

    Cards still waiting for a decision read as things are now (see
    :mod:`interlock.engine.current_cards`).
    """
    detail = await engine.db.run(_detail, engine, user.id, conversation_id, settings)
    current = await describe_now(
        engine,
        ((c, user.id, conversation_id) for m in detail.messages for c in m.tool_calls),
    )
    if current:
        detail.messages = [
            m.model_copy(update={"tool_calls": [with_current(c, current) for c in m.tool_calls]})
            for m in detail.messages
        ]
    return detail


def _detail(
    engine: Engine, user_id: str, conversation_id: str, settings: Settings
) -> ConversationDetail:
    """The conversation's detail as stored (:func:`get_conversation` without the refresh)."""
    with engine.db.session() as session:
        conversation = engine.owned_conversation(session, user_id, conversation_id)
        messages = session.exec(
            select(Message)
            .where(Message.conversation_id == conversation_id)
            .order_by(col(Message.id))
        ).all()
        decisions = {
            d.tool_call_id: d
            for d in session.exec(
                select(Decision).where(Decision.conversation_id == conversation_id)
            ).all()
        }
        rows = session.exec(
            select(ToolCall)
            .where(ToolCall.conversation_id == conversation_id)
            .order_by(col(ToolCall.index))
        ).all()
        approvals = approvals_of(session, [c.id for c in rows if c.approvals_required > 1])
        calls: dict[int, list[ToolCallOut]] = {}
        for call in rows:
            calls.setdefault(call.message_id, []).append(
                view(
                    session,
                    engine.registry,
                    call,
                    decisions.get(call.id),
                    approvals.get(call.id, []),
                )
            )
        ended = session.exec(
            select(Run.id, Run.status).where(
                Run.conversation_id == conversation_id,
                or_(
                    col(Run.status) == RunStatus.cancelled,
                    col(Run.error_code) == SERVER_RESTARTED,
                ),
            )
        ).all()
        head = summary(session, conversation)
        seq = conversation.last_event_seq
        return ConversationDetail(
            **head.model_dump(),
            model=ModelInfo(**describe_model(settings)),
            last_event_seq=seq,
            # Read after the conversation's row: the stream from here also brings what was
            # stored meanwhile (applied once: messages and calls by id).
            draft_after_seq=draft_start(session, conversation_id, seq)
            if head.status == "running"
            else seq,
            messages=[message_out(m, calls.get(m.id or 0)) for m in messages],
            stopped_runs=[r for r, s in ended if s == RunStatus.cancelled],
            restarted_runs=[r for r, s in ended if s == RunStatus.failed],
        )


@router.patch("/{conversation_id}", responses={404: {"description": "unknown or not yours"}})
def rename_conversation(
    conversation_id: str, body: ConversationUpdate, user: CurrentUser, engine: EngineDep
) -> ConversationSummary:
    """Rename a conversation (422 ``invalid_request`` for an empty, long or control-character title)."""
    with engine.db.session() as session:
        # One guarded UPDATE: a conversation deleted meanwhile (another thread or worker)
        # is 404, as an unknown one, instead of a stale ORM object failing the commit.
        renamed = session.exec(
            update(Conversation)  # type: ignore[call-overload]
            .where(
                col(Conversation.id) == conversation_id,
                col(Conversation.owner_id) == user.id,
            )
            .values(title=body.title, updated_at=utcnow())
        ).rowcount
        if renamed != 1:
            raise NotFound("No such conversation.")
        session.commit()
        return summary(session, engine.owned_conversation(session, user.id, conversation_id))


@router.delete(
    "/{conversation_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    responses={404: {"description": "unknown or not yours"}, 409: {"description": "run_active"}},
)
async def delete_conversation(
    conversation_id: str, user: CurrentUser, engine: EngineDep
) -> Response:
    """Delete a conversation and every row that belongs to it (its grants too); its open
    event streams end with ``conversation.deleted``. 409 ``run_active`` while a run is active."""
    await deletion.delete_conversation(engine, user.id, conversation_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/{conversation_id}/messages", status_code=status.HTTP_202_ACCEPTED)
async def post_message(
    conversation_id: str,
    body: MessageCreate,
    user: CurrentUser,
    request: Request,
) -> MessageAccepted:
    """Send a message; the answer streams on the conversation's events. 409 while a run is active."""
    services = services_of(request)
    engine, settings = services.engine, services.settings
    size = len(body.content.encode("utf-8"))
    if size > settings.max_message_bytes:
        raise BadRequest(
            f"The message is too long: {size:,} bytes of text, the limit is "
            f"{settings.max_message_bytes:,}. Shorten it or send it in parts.",
            code="message_too_large",
        )
    run_id, message_id = await engine.post_message(
        user.id, conversation_id, body.content, body.command
    )
    return MessageAccepted(run_id=run_id, message_id=message_id)


@router.get("/{conversation_id}/pending")
async def list_pending(
    conversation_id: str, user: CurrentUser, engine: EngineDep
) -> list[ToolCallOut]:
    """Tool calls waiting for this person (interrupted and undecided, or awaiting the
    browser's result), in call order, their cards read as things are now (see
    :mod:`interlock.engine.current_cards`)."""
    calls = await engine.db.run(_pending, engine, user.id, conversation_id)
    current = await describe_now(engine, ((c, user.id, conversation_id) for c in calls))
    return [with_current(c, current) for c in calls]


def _pending(engine: Engine, user_id: str, conversation_id: str) -> list[ToolCallOut]:
    with engine.db.session() as session:
        engine.owned_conversation(session, user_id, conversation_id)
        calls = session.exec(
            select(ToolCall)
            .outerjoin(Decision, col(Decision.tool_call_id) == col(ToolCall.id))
            .where(ToolCall.conversation_id == conversation_id, waiting_for_person())
            .order_by(col(ToolCall.message_id), col(ToolCall.index))
        ).all()
        return [view(session, engine.registry, c) for c in calls]


@router.post("/{conversation_id}/cancel")
async def cancel_run(conversation_id: str, user: CurrentUser, engine: EngineDep) -> CancelResult:
    """Cancel the active run (or close the calls a paused run waits on)."""
    return CancelResult(cancelled_run_id=await engine.cancel(user.id, conversation_id))
