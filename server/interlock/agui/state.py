"""What the AG-UI endpoint reads about a conversation (blocking calls, for ``db.run``), and
the plan of a started run."""

from __future__ import annotations

from dataclasses import dataclass

from ag_ui.core import Message as AguiMessage
from sqlmodel import col, select

from interlock.agui.translate import history_messages
from interlock.engine.records import view, waiting_for_person
from interlock.engine.runner import Engine
from interlock.storage import Conversation, Decision, Message, ToolCall
from interlock.storage.views import ToolCallOut


@dataclass
class Plan:
    """What a prepared run streams: events after ``after_seq`` of ``run_id`` (None: of the
    next run that starts), or nothing when ``follow`` is false (finish at once)."""

    after_seq: int = 0
    run_id: str | None = None
    follow: bool = True
    answered: frozenset[str] = frozenset()
    """Calls the resume answered: their results may come before the resumed run starts
    (a frontend call's result closes it at once)."""


def titles(calls: list[ToolCallOut]) -> str:
    """``“Add a note” (call_1) and “Delete a note” (call_2)``: calls named for a person."""
    names = [f"“{call.title}” ({call.id})" for call in calls]
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]


def waiting_calls(engine: Engine, conversation_id: str) -> list[ToolCallOut]:
    """The conversation's calls waiting for the person, in call order (a blocking call)."""
    with engine.db.session() as session:
        rows = session.exec(
            select(ToolCall)
            .outerjoin(Decision, col(Decision.tool_call_id) == col(ToolCall.id))
            .where(ToolCall.conversation_id == conversation_id, waiting_for_person())
            .order_by(col(ToolCall.message_id), col(ToolCall.index))
        ).all()
        return [view(session, engine.registry, row) for row in rows]


def active_run(engine: Engine, conversation_id: str) -> str | None:
    """The id of the conversation's active run, None when it is idle (a blocking call)."""
    with engine.db.session() as session:
        conversation = session.get(Conversation, conversation_id)
        return conversation.active_run_id if conversation is not None else None


def calls_of(engine: Engine, conversation_id: str, ids: list[str]) -> dict[str, ToolCallOut]:
    """The calls of the conversation among ``ids`` (a blocking call)."""
    with engine.db.session() as session:
        rows = session.exec(
            select(ToolCall).where(
                ToolCall.conversation_id == conversation_id, col(ToolCall.id).in_(ids)
            )
        ).all()
        return {row.id: view(session, engine.registry, row) for row in rows}


def stored_state(
    engine: Engine, conversation_id: str
) -> tuple[list[ToolCallOut], list[AguiMessage]]:
    """The waiting calls and the stored history as AG-UI messages (a blocking call)."""
    waiting = waiting_calls(engine, conversation_id)
    with engine.db.session() as session:
        messages = session.exec(
            select(Message)
            .where(Message.conversation_id == conversation_id)
            .order_by(col(Message.id))
        ).all()
        calls = session.exec(
            select(ToolCall)
            .where(ToolCall.conversation_id == conversation_id)
            .order_by(col(ToolCall.message_id), col(ToolCall.index))
        ).all()
        return waiting, history_messages(list(messages), list(calls))
