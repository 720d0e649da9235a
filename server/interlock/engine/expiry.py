"""Pending calls expire: deadlines on the server's clock, and the sweeper that closes them.

A call gets ``expires_at`` when it is interrupted (:meth:`Deadlines.interrupt`, rule from
:mod:`interlock.approvals.policy`). At that time the server closes it as ``expired`` with a
tool message telling the model it was not approved in time and not to retry unless asked, and
resumes the run once nothing else of that message waits. The sweeper runs at start-up (calls
that expired while the server was down are closed before it serves) and then wakes at the
next deadline (at most every ``approval_sweep_interval_s``).

Exactly once: expiring is ``UPDATE ... WHERE status = 'interrupted' AND decided_at IS NULL AND
expires_at <= now``, and the final decision sets ``decided_at`` with the mirror condition
(``expires_at > now``) on the same row, so of a decision and the sweeper exactly one wins on
SQLite and PostgreSQL alike, however many sweepers run. Only the server's clock is read.

Several processes: each runs a sweeper; the guarded update keeps outcomes exactly-once, the
others only find nothing left to do. (Seam: once a leader lock exists, take it in
:meth:`ExpirySweeper._sweep_once` to save the duplicate queries.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import event as sa_event
from sqlalchemy import func, update
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col, select

from interlock.approvals.policy import ApprovalRule, apply_rule, rule_for
from interlock.audit import TIMEOUT_DECIDER, Channel, Outcome, record_outcome
from interlock.employees import Employee
from interlock.engine.records import close_call, view
from interlock.engine.tool_texts import expired_text
from interlock.settings import Settings
from interlock.storage import Conversation, ToolCall, ToolCallApproval, ToolCallStatus
from interlock.storage.models import utcnow
from interlock.streaming import EventBus
from interlock.streaming.events import ToolCallInterrupted
from interlock.tools import Tool, ToolRegistry, is_question

if TYPE_CHECKING:
    from interlock.engine.runner import Engine

log = logging.getLogger(__name__)

EXPIRED_REASON = "Not approved in time."
SWEEP_BATCH = 200
"""Most calls closed per sweep; the sweeper goes again at once while calls are left."""


class Deadlines:
    """The server's clock and approval rules, and the sweeper's wake-up on a new deadline.

    Args:
        settings: For ``approval_timeout_s`` (the default rule's timeout, seconds).
        clock: Returns the current time, timezone-aware UTC (tests pass a fake one).
    """

    def __init__(self, settings: Settings, clock: Callable[[], datetime] = utcnow) -> None:
        self.default_timeout_s = settings.approval_timeout_s
        self.clock = clock
        self.on_new_deadline: Callable[[datetime], None] = lambda _deadline: None

    def now(self) -> datetime:
        """The server's current time (UTC)."""
        return self.clock()

    def rule_for(self, tool: Tool | None, employee: Employee) -> ApprovalRule:
        """The approval rule of a call to ``tool`` under ``employee``."""
        return rule_for(tool, employee, self.default_timeout_s)

    def interrupt(
        self,
        session: Session,
        bus: EventBus,
        registry: ToolRegistry,
        call: ToolCall,
        employee: Employee,
        run_id: str,
        *,
        max_timeout_s: float | None = None,
    ) -> None:
        """Stage ``call`` becoming ``interrupted`` with its rule and deadline; caller commits.

        ``call`` is one created in this transaction (every caller interrupts a call it just
        proposed), so it has no decision yet: none is read.

        ``max_timeout_s`` caps the rule's timeout (an MCP caller waits at most
        ``mcp_approval_timeout_s``); a shorter rule wins. The sweeper hears of the new deadline
        only after the commit (not after a rollback): told earlier, it could look before the
        row is visible, miss it and sleep past it.
        """
        call.status = ToolCallStatus.interrupted
        rule = self.rule_for(registry.get(call.name), employee)
        if max_timeout_s is not None and max_timeout_s < rule.timeout_s:
            rule = replace(rule, timeout_s=max_timeout_s)
        apply_rule(call, rule, self.now())
        session.add(call)  # written with the transaction's next flush (at the latest its commit)
        bus.stage(
            session,
            call.conversation_id,
            ToolCallInterrupted(run_id=run_id, tool_call=view(session, registry, call, None)),
        )
        deadline = call.expires_at
        assert deadline is not None
        # Told by the one after-commit hook below (a listener per call costs more than the
        # rest of this method).
        session.info.setdefault(_NEW_DEADLINES_KEY, []).append((self, deadline))


_NEW_DEADLINES_KEY = "interlock_new_deadlines"
"""``session.info`` key: ``[(Deadlines, deadline)]`` to tell once the session commits."""


def _tell_new_deadlines(session: OrmSession) -> None:
    for deadlines, deadline in session.info.pop(_NEW_DEADLINES_KEY, ()):
        deadlines.on_new_deadline(deadline)


sa_event.listen(OrmSession, "after_commit", _tell_new_deadlines)


def expire_call(engine: Engine, tool_call_id: str, now: datetime) -> tuple[str, int] | None:
    """Close ``tool_call_id`` as ``expired`` if it is still undecided past its deadline.

    When nothing else of its message waits, the resume run is claimed in the same
    transaction and started after the commit (a chat conversation; a record of MCP calls
    settles when the caller resumes it).

    Returns:
        ``(conversation_id, message_id)`` of the call when this closed it, else None (decided
        meanwhile, closed by someone else, or not due yet).
    """
    with engine.db.session() as session:
        claimed = session.exec(  # type: ignore[call-overload]
            update(ToolCall)
            .where(
                col(ToolCall.id) == tool_call_id,
                col(ToolCall.status) == ToolCallStatus.interrupted,
                col(ToolCall.decided_at).is_(None),
                col(ToolCall.expires_at) <= now,
            )
            .values(status=ToolCallStatus.expired)
        ).rowcount
        if claimed != 1:
            session.rollback()
            return None
        call = session.get(ToolCall, tool_call_id)
        assert call is not None and call.expires_at is not None
        session.refresh(call)
        timeout_s = (call.expires_at - call.created_at).total_seconds()
        record_outcome(
            session,
            call=call,
            decider=TIMEOUT_DECIDER,
            channel=Channel.system,
            outcome=Outcome.expired,
            reason=EXPIRED_REASON,
            proposed_args=call.proposed_args,
            executed_args=None,
        )
        close_call(
            session,
            engine.bus,
            engine.registry,
            call,
            status=ToolCallStatus.expired,
            text=expired_text(
                timeout_s,
                question=_is_question(engine.registry, call.name),
                given=approvals_given(session, call.id),
                required=call.approvals_required,
            ),
            error_code="expired",
            error_message=EXPIRED_REASON,
        )
        call.finished_at = now
        session.add(call)
        where = (call.conversation_id, call.message_id)
        # The run resumes with the close (one commit): the conversation never reads idle,
        # nothing waiting and no answer, in between.
        started = engine.claim_resumes_in(session, [where])
        owner_id = _owner_of(session, call.conversation_id) if started else ""
        deadline = call.expires_at.isoformat()
        engine.bus.commit(session)
    log.info("tool call %s expired (deadline %s)", tool_call_id, deadline)
    for run_id in started.values():
        engine.spawn_soon(run_id, where[0], owner_id, start="tools")
    return where


def _owner_of(session: Session, conversation_id: str) -> str:
    conversation = session.get(Conversation, conversation_id)
    assert conversation is not None  # its call was closed in this transaction
    return conversation.owner_id


def approvals_given(session: Session, tool_call_id: str) -> int:
    """How many people approved ``tool_call_id`` so far (a rule needing several approvals)."""
    return int(
        session.exec(
            select(func.count())
            .select_from(ToolCallApproval)
            .where(col(ToolCallApproval.tool_call_id) == tool_call_id)
        ).one()
    )


def _is_question(registry: ToolRegistry, name: str) -> bool:
    return is_question(registry.get(name))


def expire_due(engine: Engine, now: datetime | None = None) -> list[str]:
    """Close every undecided call past its deadline, then resume the runs left with nothing to wait for.

    Args:
        engine: The engine (storage, bus, registry, resuming).
        now: The time to compare deadlines with; the server's clock when omitted.

    Returns:
        The ids of the calls this sweep closed.
    """
    now = now or engine.deadlines.now()
    closed: list[str] = []
    touched: dict[tuple[str, int], None] = {}
    while True:
        with engine.db.session() as session:
            due = session.exec(
                select(ToolCall.id)
                .where(
                    ToolCall.status == ToolCallStatus.interrupted,
                    col(ToolCall.decided_at).is_(None),
                    col(ToolCall.expires_at) <= now,
                )
                .order_by(col(ToolCall.expires_at))
                .limit(SWEEP_BATCH)
            ).all()
        for call_id in due:
            where = expire_call(engine, call_id, now)
            if where is not None:
                closed.append(call_id)
                touched[where] = None
        if len(due) < SWEEP_BATCH:
            break
    for conversation_id, message_id in touched:
        engine.resume_after_close(conversation_id, message_id)
    return closed


def next_deadline(engine: Engine) -> datetime | None:
    """The earliest deadline of an undecided interrupted call, or None."""
    with engine.db.session() as session:
        value = session.exec(
            select(func.min(ToolCall.expires_at)).where(
                ToolCall.status == ToolCallStatus.interrupted,
                col(ToolCall.decided_at).is_(None),
            )
        ).one()
    return value


class ExpirySweeper:
    """Background task closing expired calls: at the next deadline, at least every interval.

    The sweeps themselves run on the database threads (``db.run``); the task only waits.

    Args:
        engine: The engine whose calls it closes.
        interval_s: Longest pause between two sweeps, in seconds.
    """

    def __init__(self, engine: Engine, interval_s: float) -> None:
        self.engine = engine
        self.interval_s = interval_s
        self._wake: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = False
        self._planned: datetime | None = None
        self._sweeping = False
        self._task: asyncio.Task[None] | None = None
        engine.deadlines.on_new_deadline = self.notice

    def start(self) -> None:
        """Start the task (needs a running event loop)."""
        if self._task is None:
            self._loop = asyncio.get_running_loop()
            self._wake = asyncio.Event()
            self._stopping = False
            self._task = asyncio.create_task(self._run(), name="expiry sweeper")

    def notice(self, deadline: datetime) -> None:
        """A call got ``deadline``: wake early if the sweeper planned to look later.

        Safe to call from any thread (calls are interrupted on the database threads).
        """
        if self._loop is None or self._wake is None:
            return
        # During a sweep the plan is not made yet: that sweep may have read the deadlines
        # before this one was committed, so it looks again.
        if self._sweeping or self._planned is None or deadline < self._planned:
            self._loop.call_soon_threadsafe(self._wake.set)

    async def aclose(self) -> None:
        """Stop the task and wait for it."""
        self._stopping = True
        if self._wake is not None:
            self._wake.set()
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def _run(self) -> None:
        assert self._wake is not None
        while not self._stopping:
            self._wake.clear()
            delay = await self.engine.db.run(self._sweep_once)
            if self._stopping:
                return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=delay)

    def _sweep_once(self) -> float:
        """Sweep (database thread); return the seconds to wait before the next sweep."""
        self._sweeping = True
        try:
            return self._sweep_and_plan()
        finally:
            self._sweeping = False

    def _sweep_and_plan(self) -> float:
        try:
            # One process at a time (several workers): the others skip this round.
            self.engine.leases.exclusively(expire_due, self.engine)
            deadline = next_deadline(self.engine)
        except Exception:  # a database hiccup: log it, try again next time
            log.exception("expiry sweep failed")
            deadline = None
        now = self.engine.deadlines.now()
        delay = self.interval_s
        if deadline is not None:
            # A few milliseconds late rather than early: the deadline must have passed.
            delay = min(delay, max(0.0, (deadline - now).total_seconds()) + 0.005)
        self._planned = now + timedelta(seconds=delay)
        return delay
