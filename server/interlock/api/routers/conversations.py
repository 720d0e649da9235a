"""Conversations and their messages."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response, status
from pydantic import BaseModel, ConfigDict, Field, field_validator
from sqlalchemy import delete
from sqlmodel import col, select

from interlock.api.deps import CurrentUser, DbDep, EngineDep, ServicesDep, SettingsDep
from interlock.employees import DEFAULT_EMPLOYEE
from interlock.engine.commands import CommandClaim
from interlock.engine.records import approvals_of, view
from interlock.errors import BadRequest, Conflict
from interlock.models import describe_model
from interlock.storage import (
    Conversation,
    Decision,
    Event,
    Grant,
    Message,
    Run,
    ToolCall,
    ToolCallApproval,
    ToolCallStatus,
)
from interlock.storage.text import check_storable
from interlock.storage.views import (
    ConversationSummary,
    MessageOut,
    ToolCallOut,
    conversation_status,
    message_out,
)

router = APIRouter(prefix="/api/conversations", tags=["conversations"])


class ConversationCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    employee: str | None = Field(default=None, max_length=100)

    @field_validator("employee")
    @classmethod
    def _storable(cls, value: str | None) -> str | None:
        return check_storable(value)  # type: ignore[no-any-return]


class MessageCreate(BaseModel):
    """A user message: 1 byte to 32 kB of UTF-8 text (``max_message_bytes``)."""

    model_config = ConfigDict(extra="forbid")

    content: str
    command: CommandClaim | None = None

    @field_validator("content")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("content must not be empty")
        return str(check_storable(value))


class MessageAccepted(BaseModel):
    run_id: str
    message_id: int


class ModelInfo(BaseModel):
    name: str
    offline: bool


class ConversationDetail(ConversationSummary):
    model: ModelInfo
    last_event_seq: int
    messages: list[MessageOut]


class CancelResult(BaseModel):
    cancelled_run_id: str | None


def _has_pending(db_session: Any, conversation_id: str) -> bool:
    return (
        db_session.exec(
            select(ToolCall.id).where(
                ToolCall.conversation_id == conversation_id,
                ToolCall.status == ToolCallStatus.interrupted,
            )
        ).first()
        is not None
    )


def _summary(session: Any, conversation: Conversation) -> ConversationSummary:
    return ConversationSummary(
        id=conversation.id,
        title=conversation.title,
        employee=conversation.employee,
        status=conversation_status(conversation, _has_pending(session, conversation.id)),  # type: ignore[arg-type]
        created_at=conversation.created_at,
        updated_at=conversation.updated_at,
    )


@router.post("", status_code=status.HTTP_201_CREATED)
def create_conversation(
    body: ConversationCreate, user: CurrentUser, db: DbDep, services: ServicesDep
) -> ConversationSummary:
    """Start a conversation with an employee (the default one when omitted)."""
    slug = body.employee or DEFAULT_EMPLOYEE
    employee = services.employees.get(slug)
    if employee is None:
        raise BadRequest(f"Unknown employee {slug!r}.", code="invalid_request")
    if employee.disabled:
        raise Conflict(f"{employee.name} is disabled.", code="employee_disabled")
    with db.session() as session:
        conversation = Conversation(owner_id=user.id, employee=slug)
        session.add(conversation)
        session.commit()
        return _summary(session, conversation)


@router.get("")
def list_conversations(user: CurrentUser, db: DbDep) -> list[ConversationSummary]:
    """The caller's conversations, most recently active first."""
    with db.session() as session:
        rows = session.exec(
            select(Conversation)
            .where(Conversation.owner_id == user.id)
            .order_by(col(Conversation.updated_at).desc())
            .limit(500)
        ).all()
        return [_summary(session, c) for c in rows]


@router.get("/{conversation_id}")
def get_conversation(
    conversation_id: str, user: CurrentUser, engine: EngineDep, settings: SettingsDep
) -> ConversationDetail:
    """Everything a client needs after a reload: messages, tool calls, decisions, status."""
    with engine.db.session() as session:
        conversation = engine.owned_conversation(session, user.id, conversation_id)
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
        summary = _summary(session, conversation)
        return ConversationDetail(
            **summary.model_dump(),
            model=ModelInfo(**describe_model(settings)),
            last_event_seq=conversation.last_event_seq,
            messages=[message_out(m, calls.get(m.id or 0)) for m in messages],
        )


@router.delete("/{conversation_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_conversation(conversation_id: str, user: CurrentUser, engine: EngineDep) -> Response:
    """Delete a conversation and every row that belongs to it (its grants too). 409 while a
    run is active."""
    with engine.db.session() as session:
        conversation = engine.owned_conversation(session, user.id, conversation_id)
        if conversation.active_run_id:
            raise Conflict("Cancel the active run before deleting.", code="run_active")
        for table in (Event, Decision, ToolCallApproval, ToolCall, Message, Run, Grant):
            session.exec(delete(table).where(col(table.conversation_id) == conversation_id))  # type: ignore[call-overload]
        session.delete(conversation)
        session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/{conversation_id}/messages", status_code=status.HTTP_202_ACCEPTED)
async def post_message(
    conversation_id: str,
    body: MessageCreate,
    user: CurrentUser,
    engine: EngineDep,
    settings: SettingsDep,
) -> MessageAccepted:
    """Send a message; the answer streams on the conversation's events. 409 while a run is active."""
    size = len(body.content.encode("utf-8"))
    if size > settings.max_message_bytes:
        raise BadRequest(
            f"The message is {size} bytes; the limit is {settings.max_message_bytes}.",
            code="message_too_large",
        )
    run_id, message_id = await engine.post_message(
        user.id, conversation_id, body.content, body.command
    )
    return MessageAccepted(run_id=run_id, message_id=message_id)


@router.get("/{conversation_id}/pending")
def list_pending(conversation_id: str, user: CurrentUser, engine: EngineDep) -> list[ToolCallOut]:
    """Tool calls waiting for a decision (interrupted and undecided), in call order."""
    with engine.db.session() as session:
        engine.owned_conversation(session, user.id, conversation_id)
        calls = session.exec(
            select(ToolCall)
            .outerjoin(Decision, col(Decision.tool_call_id) == col(ToolCall.id))
            .where(
                ToolCall.conversation_id == conversation_id,
                ToolCall.status == ToolCallStatus.interrupted,
                col(Decision.id).is_(None),
            )
            .order_by(col(ToolCall.message_id), col(ToolCall.index))
        ).all()
        return [view(session, engine.registry, c) for c in calls]


@router.post("/{conversation_id}/cancel")
async def cancel_run(conversation_id: str, user: CurrentUser, engine: EngineDep) -> CancelResult:
    """Cancel the active run (or close the calls a paused run waits on)."""
    return CancelResult(cancelled_run_id=await engine.cancel(user.id, conversation_id))
