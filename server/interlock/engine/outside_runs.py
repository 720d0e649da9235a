"""Running and closing tool calls proposed from outside a chat (see :mod:`interlock.engine.outside`).

A decided call runs here, once, whoever else tries (the compare-and-set claim of
:class:`~interlock.engine.calls.CallExecutor`); a caller that leaves closes its undecided call.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from sqlalchemy import update
from sqlmodel import Session, col, select

from interlock.audit import SYSTEM_DECIDER, Channel, Outcome, record_outcome
from interlock.employees import Employee
from interlock.engine.calls import CallExecutor
from interlock.engine.records import close_call, view
from interlock.engine.tool_texts import cancelled_text
from interlock.storage import (
    Conversation,
    Decision,
    DecisionType,
    Message,
    ToolCall,
    ToolCallStatus,
)
from interlock.storage.models import utcnow
from interlock.storage.views import ToolCallOut

if TYPE_CHECKING:
    from interlock.engine.runner import Engine

log = logging.getLogger(__name__)


class OutsideRuns:
    """Runs, closes and reads outside calls.

    Args:
        engine: The engine (storage, bus, registry, the loop its tasks run on).
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.calls = CallExecutor(engine.db, engine.bus, engine.registry, engine.late)
        self.stopping = False
        """Set while the server shuts down: waiting callers are cut off, not leaving."""

    # -- running ---------------------------------------------------------------------------
    async def run_allowed(self, call_id: str, user_id: str, employee: Employee) -> None:
        """Run a call the gate let through (``ALLOW`` or a grant), once.

        The run is a task of its own: a caller that leaves does not stop a tool halfway, and
        its result is kept.
        """
        call = await self.engine.db.run(self._load, call_id)
        if call is None or call.status != ToolCallStatus.pending:
            return
        await self._detached(
            self.calls.execute(call.run_id, user_id, employee, call, call.proposed_args)
        )

    def settle_soon(self, conversation_id: str, message_id: int) -> None:
        """Run (or close) the decided calls of ``message_id`` in a task; any thread."""
        loop = self.engine._loop
        if loop is None:
            return
        loop.call_soon_threadsafe(self._spawn_settle, conversation_id, message_id)

    def _spawn_settle(self, conversation_id: str, message_id: int) -> None:
        task = asyncio.create_task(self.settle(conversation_id, message_id))
        self.engine._background.add(task)
        task.add_done_callback(self.engine._background.discard)

    async def settle(self, conversation_id: str, message_id: int) -> None:
        """Run approved or edited calls of ``message_id``, close rejected and answered ones.

        Each call runs at most once whoever else tries (compare-and-set claim).
        """
        engine = self.engine
        rows = await engine.db.run(self._decided, message_id)
        for call, decision, owner_id, employee_slug in rows:
            employee = await engine.db.run(engine.employee_of, employee_slug)
            if decision.type in (DecisionType.approve, DecisionType.edit):
                args = decision.args if decision.type == DecisionType.edit else call.proposed_args
                await self._detached(
                    self.calls.execute(call.run_id, owner_id, employee, call, args)
                )
            else:
                await engine.db.run(self.calls.close_decided, call.run_id, call, decision)

    async def _detached(self, work: Any) -> None:
        """Await ``work`` in a task the caller's cancellation does not reach."""
        task = asyncio.ensure_future(work)
        self.engine._background.add(task)
        task.add_done_callback(self.engine._background.discard)
        await asyncio.shield(task)

    def _decided(self, message_id: int) -> list[tuple[ToolCall, Decision, str, str]]:
        with self.engine.db.session() as session:
            rows = session.exec(
                select(ToolCall, Decision, Conversation.owner_id, Conversation.employee)
                .join(Decision, col(Decision.tool_call_id) == col(ToolCall.id))
                .join(Conversation, col(Conversation.id) == col(ToolCall.conversation_id))
                .where(
                    ToolCall.message_id == message_id,
                    ToolCall.status == ToolCallStatus.interrupted,
                )
            ).all()
            return [(c, d, o, e) for c, d, o, e in rows]

    def _load(self, call_id: str) -> ToolCall | None:
        with self.engine.db.session() as session:
            return session.get(ToolCall, call_id)

    def outcome(self, call_id: str) -> tuple[ToolCallOut | None, str | None]:
        """The call's wire shape now and its tool message's text once closed (database thread).

        The tool message is what a model in a chat reads: the result, or why the call did not
        run (``Rejected by the person: ...``, ``Not approved in time: ...``). ``(None, None)``
        once the person deleted the record conversation.
        """
        with self.engine.db.session() as session:
            call = session.get(ToolCall, call_id)
            if call is None:
                return None, None
            text = session.exec(
                select(Message.content).where(Message.tool_call_id == call_id)
            ).first()
            return view(session, self.engine.registry, call), text

    def own_call(self, call_id: str, user_id: str) -> tuple[ToolCallOut, str] | None:
        """``(call, conversation id)`` when ``call_id`` is an outside call of ``user_id``'s
        record, else None (database thread)."""
        with self.engine.db.session() as session:
            call = session.get(ToolCall, call_id)
            conversation = session.get(Conversation, call.conversation_id) if call else None
            if (
                call is None
                or conversation is None
                or conversation.owner_id != user_id
                or call.client_name is None
            ):
                return None
            return view(session, self.engine.registry, call), conversation.id

    # -- the caller leaves -----------------------------------------------------------------
    def caller_left(self, call_id: str, client_name: str) -> bool:
        """Close an undecided waiting call as ``cancelled``: nobody is left to hear its result.

        Guarded like an expiry (``interrupted`` or not yet started ``pending``, and
        ``decided_at`` empty), so of a decision (or the run of an allowed call) and this exactly
        one wins; a call already decided or started runs and keeps its result. While the
        server stops (:attr:`stopping`) the reason says so instead.

        Returns:
            True when this closed the call.
        """
        engine = self.engine
        reason = (
            f"the server stopped while {client_name} waited for the decision, so the call "
            "did not run"
            if self.stopping
            else f"{client_name} stopped waiting for the decision, so the call did not run"
        )
        with engine.db.session() as session:
            closed = session.exec(  # type: ignore[call-overload]
                update(ToolCall)
                .where(
                    col(ToolCall.id) == call_id,
                    col(ToolCall.status).in_([ToolCallStatus.pending, ToolCallStatus.interrupted]),
                    col(ToolCall.decided_at).is_(None),
                )
                .values(status=ToolCallStatus.cancelled, decided_at=utcnow())
            ).rowcount
            if closed != 1:
                session.rollback()
                return False
            call = session.get(ToolCall, call_id)
            assert call is not None
            session.refresh(call)
            record_automatic(
                session, call, SYSTEM_DECIDER, Outcome.cancelled, reason, executed=False
            )
            close_call(
                session,
                engine.bus,
                engine.registry,
                call,
                status=ToolCallStatus.cancelled,
                text=cancelled_text(reason),
                error_code="cancelled",
                error_message=f"{reason[0].upper()}{reason[1:]}.",
            )
            engine.bus.commit(session)
        log.info("outside call %s closed: %s", call_id, reason)
        return True


def record_automatic(
    session: Session,
    call: ToolCall,
    decider: str,
    outcome: Outcome,
    reason: str | None,
    *,
    executed: bool,
) -> None:
    """The audit record of an automatic outcome on an outside call (channel ``mcp``)."""
    record_outcome(
        session,
        call=call,
        decider=decider,
        channel=Channel.mcp,
        outcome=outcome,
        reason=reason,
        proposed_args=call.proposed_args,
        executed_args=call.proposed_args if executed else None,
    )
