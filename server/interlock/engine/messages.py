"""A person's message: stored with its run's claim and ``run.started`` in one transaction.

Open calls of the conversation are closed as ``cancelled`` first, each with a tool message,
so the history keeps the providers' ordering rules. A slash command (``/notes buy milk``) is
resolved on the server and its tool call proposed directly, through the same permission gate
as the model's calls.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from sqlalchemy import bindparam, update
from sqlalchemy import select as sa_select

from interlock.engine.commands import CommandClaim, propose_command, resolve_command
from interlock.engine.open_calls import ANY_OPEN_CALL, cancel_open_calls, lock_open_calls
from interlock.engine.outside import MCP_CHANNEL
from interlock.engine.preflight import prepare_command
from interlock.engine.resumes import claim_conversation
from interlock.engine.tool_texts import CloseReason
from interlock.engine.turn import effective_permission
from interlock.errors import Conflict, NotFound
from interlock.permissions import read_switch_of, start_switch
from interlock.storage import Conversation, Message, MessageRole, Run
from interlock.storage.models import utcnow
from interlock.storage.read_soon import read_soon
from interlock.storage.rows import defer_rows, insert_rows, new_row
from interlock.storage.views import message_out
from interlock.storage.write_behind import defer, execute
from interlock.streaming.events import MessageCompleted, RunStarted
from interlock.text import short_label

if TYPE_CHECKING:
    from interlock.engine.runner import Engine

NEW_MESSAGE_REASON = CloseReason(
    model="the person sent a new message before deciding",
    owner="you sent a new message",
    record="a new message was sent",
)
TITLE_LENGTH = 60
"""Longest title made from a conversation's first message, "…" included (characters)."""

_conversations = Conversation.__table__  # type: ignore[attr-defined]
_OWNED = sa_select(
    _conversations.c.owner_id,
    _conversations.c.channel,
    _conversations.c.employee,
    _conversations.c.title,
).where(_conversations.c.id == bindparam("conversation_id"))
"""What a message needs of its conversation (prebuilt Core: no ORM object per message)."""
_TOUCH = (
    update(_conversations)
    .where(_conversations.c.id == bindparam("conversation_id"))
    .values(title=bindparam("title"), updated_at=bindparam("now"))
)
"""A message's conversation update: its title (from the first message) and activity time."""


def store_message(
    engine: Engine, user_id: str, conversation_id: str, content: str, claim: CommandClaim | None
) -> tuple[str, int]:
    """The transaction of :meth:`post_message` (database thread); starts the run's task."""
    with engine.db.session() as session:
        switch_read = read_switch_of(session, user_id, conversation_id)  # with the next read
        conversation = execute(session, _OWNED, {"conversation_id": conversation_id}).first()
        if conversation is None or conversation.owner_id != user_id:
            raise NotFound("No such conversation.")
        if conversation.channel == MCP_CHANNEL:
            raise Conflict(
                "This conversation is the record of calls made by MCP clients; start a new "
                "conversation to chat.",
                code="mcp_record",
            )
        if engine.employees.get(conversation.employee) is None:
            raise Conflict(
                "This conversation's employee was deleted; start a new conversation.",
                code="employee_deleted",
            )
        employee = engine.employee_of(conversation.employee)
        if employee.disabled:
            raise Conflict(
                f"{employee.name} is disabled; start a conversation with someone else.",
                code="employee_disabled",
            )
        switch = start_switch(
            session,
            user_id,
            employee.slug,
            days=engine.settings.actions_grant_days,
            read=switch_read,
        )
        command = resolve_command(
            content, claim, employee, engine.catalog, engine.registry, actions_on=switch.on
        )
        if command is not None:
            # The tool's check and confirmation may be async: run them on the event loop
            # (this is a database thread; the loop waits for it without blocking).
            assert engine._loop is not None
            command = asyncio.run_coroutine_threadsafe(
                prepare_command(
                    engine.registry,
                    command,
                    effective_permission(command.tool, employee, actions_on=switch.on),
                    user_id=user_id,
                    conversation_id=conversation_id,
                    db=engine.db,
                ),
                engine._loop,
            ).result()
        run = new_row(
            Run, conversation_id=conversation_id, trigger="message", owner_id=engine.worker_id
        )
        if not engine.db.is_sqlite:
            # Its open calls locked first, in the same round trip (engine.records'
            # lock order: a decision locks its call, then the conversation).
            read_soon(session, *lock_open_calls(conversation_id))
        # The conversation's event sequence is held with the claim (same row, same round
        # trip): this transaction's events are numbered without a bump of their own; whether
        # a call is open is read there too, once the conversation is held.
        claimed, (held, open_call) = claim_conversation(
            session,
            conversation_id,
            run.id,
            engine.bus.hold_seq(conversation_id),
            (ANY_OPEN_CALL, {"conversation_id": conversation_id}),
        )
        if not claimed:
            if execute(session, _OWNED, {"conversation_id": conversation_id}).first() is None:
                # Deleted after the read above (PostgreSQL: another thread or worker).
                raise NotFound("No such conversation.")
            raise Conflict(
                "A run is active in this conversation; wait for it or cancel it.",
                code="run_active",
            )
        engine.bus.held(session, conversation_id, held)
        engine.bus.stage(session, conversation_id, RunStarted(run_id=run.id, trigger="message"))
        cancel_open_calls(
            session,
            engine.bus,
            engine.registry,
            conversation_id,
            NEW_MESSAGE_REASON,
            run.id,
            decider=user_id,
            any_open=open_call.first() is not None,
        )
        message = new_row(
            Message,
            conversation_id=conversation_id,
            run_id=run.id,
            role=MessageRole.user,
            content=content,
        )
        defer_rows(session, [run])  # sent with the message's insert (one round trip)
        insert_rows(session, [message])
        title = conversation.title
        if title == "New conversation":
            title = short_label(content, TITLE_LENGTH, as_written=True) or title
        # Sent with the events and the COMMIT (nothing reads its row count).
        defer(
            session, _TOUCH, {"conversation_id": conversation_id, "title": title, "now": utcnow()}
        )
        assert message.id is not None
        engine.bus.stage(
            session,
            conversation_id,
            MessageCompleted(run_id=run.id, message=message_out(message)),
        )
        if command is not None:
            propose_command(
                session,
                engine.bus,
                engine.registry,
                engine.deadlines,
                engine.owned_conversation(session, user_id, conversation_id),  # as updated
                employee,
                run.id,
                command,
                actions_on=switch.on,
            )
        engine.bus.commit(session)
    # A slash command's call is proposed already: the run starts at the tools node.
    engine.spawn_soon(run.id, conversation_id, user_id, "model" if command is None else "tools")
    return run.id, message.id
