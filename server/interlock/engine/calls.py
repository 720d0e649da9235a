"""Running one allowed or approved tool call, and closing calls the person decided.

A call runs at most once: it is claimed with a compare-and-set from ``pending`` or
``interrupted``. A call refused before its handler runs (the tool was denied or removed
meanwhile, its ``check`` fails now) ends ``failed`` without ever being claimed, so its
``executed_args`` and ``started_at`` stay null ("not run"). A frontend call
(``execution="frontend"``) is not run here: it moves to ``awaiting_client`` with its
``executed_args`` and waits for the browser's result (``engine.client_results``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from sqlalchemy import bindparam, update
from sqlmodel import Session, col

from interlock.employees import Employee
from interlock.engine.call_refusals import plain_refusal, refusal_now
from interlock.engine.fence import hold_run
from interlock.engine.late import STILL_RUNNING, LateResults, close_late, tool_outcome
from interlock.engine.outcomes import close_running
from interlock.engine.records import UNLOADED, close_call, view
from interlock.engine.tool_texts import answer_text, failure, rejected_text
from interlock.permissions import actions_on
from interlock.storage import Database, Decision, DecisionType, ToolCall, ToolCallStatus
from interlock.storage.call_rows import CallValues
from interlock.storage.models import utcnow
from interlock.storage.write_behind import send
from interlock.streaming import EventBus
from interlock.streaming.events import ToolCallAwaitingClient, ToolCallRunning
from interlock.tools import ToolContext, ToolError, ToolRegistry
from interlock.tools.execution import runs_in_thread

logger = logging.getLogger(__name__)

__all__ = ["CallExecutor", "failure"]

_Decided = tuple[Decision | object | None, str | object | None]
"""A call's decision and its decider's name, each as the caller has it (or
:data:`~interlock.engine.records.UNLOADED`)."""
_CLAIMABLE = [ToolCallStatus.pending, ToolCallStatus.interrupted]
_tool_calls = ToolCall.__table__  # type: ignore[attr-defined]
_CLAIM = (
    update(_tool_calls)
    .where(
        _tool_calls.c.id == bindparam("call_id"),
        _tool_calls.c.status.in_([str(s) for s in _CLAIMABLE]),
    )
    .values(
        status=bindparam("new_status"), executed_args=bindparam("args"), started_at=bindparam("now")
    )
    .returning(*_tool_calls.c)
)
"""The claim, as a prebuilt Core statement (a hot path; no ORM object of the row is loaded):
the row as claimed comes back with it."""


class CallExecutor:
    """Runs and closes tool calls for the turn graph.

    Args:
        db: Storage.
        bus: Event bus.
        registry: Tool registry.
        late: Where tools still running after their run was cancelled are followed (the
            engine's, so that shutdown stops following them).
    """

    def __init__(
        self, db: Database, bus: EventBus, registry: ToolRegistry, late: LateResults | None = None
    ) -> None:
        self.db = db
        self.bus = bus
        self.registry = registry
        self.late = late if late is not None else LateResults()

    async def execute(
        self,
        run_id: str,
        user_id: str,
        employee: Employee,
        call: ToolCall,
        args: Any,
        *,
        actions_on: bool | None = None,
        decision: Decision | object | None = UNLOADED,
        decided_by: str | object | None = UNLOADED,
        claimed: bool = False,
        fenced: bool = False,
    ) -> bool:
        """Run ``call`` once with ``args`` and store its outcome.

        Args:
            run_id: The run doing it.
            user_id: The conversation's owner.
            employee: The conversation's employee.
            call: The call (``pending``, or ``interrupted`` and approved).
            args: The args it runs with (the proposal, or the person's edit).
            actions_on: The owner's "AI actions" switch for the employee when the caller read
                it in this step; read here when None.
            decision: The call's decision when the caller has it (``None``: it has none),
                for the events; read when omitted.
            decided_by: The decider's name when the caller has it, for the events; read
                when omitted.
            claimed: The caller already claimed it (:meth:`claim_in`): it runs at once.
            fenced: Claim it only while this worker still runs ``run_id`` (a run's step,
                :mod:`interlock.engine.fence`).

        Returns:
            True when the call now waits for the browser (a frontend call), else False.

        Raises:
            RunTakenOver: ``fenced`` and another worker took the run over (nothing ran).
        """
        missing: ToolError | None = None
        try:  # a remote MCP server still connecting after a restart: wait for its tools
            tool = await self.registry.resolve(call.name)
        except ToolError as exc:
            tool, missing = None, exc
        context = ToolContext(
            user_id=user_id,
            conversation_id=call.conversation_id,
            tool_call_id=call.id,
            db=self.db,
            writable=tool.write if tool is not None else False,
            tool_name=call.name,
        )
        if not claimed:
            if actions_on is None:
                actions_on = await self.db.run(self._actions_on, user_id, employee.slug)
            refusal = missing or await refusal_now(
                self.registry, tool, employee, call, args, context, actions_on
            )
            if refusal is not None:
                await self.db.run(self._refuse, run_id, call, refusal, fenced)
                return False
        assert tool is not None
        frontend = tool.execution == "frontend"
        if not claimed and not await self.db.run(
            self._claim, run_id, call, args, frontend, (decision, decided_by), fenced
        ):
            return False
        if frontend:
            return True
        decided = (decision, decided_by)
        running = tool_outcome(self.registry, tool, args, context)
        if not runs_in_thread(tool):  # an async tool is cancelled with its run
            outcome = await running
        else:  # a worker thread cannot be stopped: its outcome is recorded when it returns
            job = asyncio.ensure_future(running)  # (:mod:`interlock.engine.late`)
            try:
                outcome = await asyncio.shield(job)
            except asyncio.CancelledError:
                self._follow_late(job, run_id, call, decided)
                raise
        await self._finish(run_id, call, outcome, decided)
        return False

    async def _finish(
        self, run_id: str, call: ToolCall, outcome: dict[str, Any], decided: _Decided
    ) -> None:
        """Store the outcome; a thread tool past its timeout is followed until it returns."""
        still_running = outcome.pop(STILL_RUNNING, None)
        if still_running is not None:
            self._follow_late(still_running, run_id, call, decided)
        await self.db.run(self._store_outcome, run_id, call, outcome, *decided)

    def _follow_late(
        self, job: asyncio.Future[dict[str, Any]], run_id: str, call: ToolCall, decided: _Decided
    ) -> None:
        """Follow a thread tool still running after its call was stopped (its run cancelled)
        or timed out: what it did when it returns is stored by :meth:`_finish`, which records
        it on the closed call (:func:`~interlock.engine.late.close_late`)."""
        self.late.follow(job, lambda late: self._finish(run_id, call, late, decided))

    def _store_outcome(
        self,
        run_id: str,
        call: ToolCall,
        outcome: dict[str, Any],
        decision: Decision | object | None,
        decided_by: str | object | None,
    ) -> None:
        """Close a call that ran with its outcome, or record it late on a call stopped meanwhile.

        A call closed while its tool ran (its run cancelled or failed, a new message) is
        already ``failed`` with ``outcome_unknown`` (:func:`~interlock.engine.open_calls.
        cancel_open_calls`): it keeps that one tool message, and the outcome is recorded on
        it once with ``tool_call.finished_late`` (:func:`~interlock.engine.late.close_late`),
        as on a call closed ``timeout`` whose thread ran on (:meth:`_finish`); one that says
        nothing new (a timeout), or a call gone meanwhile, is only logged. A
        blocking call (database thread): two round trips on PostgreSQL, the close with the
        tool message (:func:`~interlock.engine.outcomes.close_running`), then the events with
        the ``COMMIT``.
        """
        with self.db.session() as session:
            if not close_running(
                session,
                self.bus,
                self.registry,
                call,
                run_id,
                **outcome,
                decision=decision,
                decided_by=decided_by,
            ):
                session.rollback()  # closed meanwhile: the tool message is undone
                if close_late(session, self.bus, self.registry, call, outcome):
                    self.bus.commit(session)
                    return
                session.rollback()
                logger.warning(
                    "Tool call %s (%s) finished %s after it was closed; not stored",
                    call.id,
                    call.name,
                    outcome["status"],
                )
                return
            self.bus.commit(session)

    def claim_in(
        self,
        session: Session,
        run_id: str,
        call: ToolCall,
        args: Any,
        employee: Employee,
        on: bool,
        decision: Decision | None,
        decided_by: str | None,
    ) -> bool:
        """Claim ``call`` in the caller's transaction when nothing but data decides it may
        run (no ``check`` to run first); the caller commits, then runs it with
        ``execute(..., claimed=True)``. Saves the tool step a transaction.

        Returns:
            True when claimed (``tool_call.running`` or ``awaiting_client`` staged).

        Raises:
            RunTakenOver: Another worker took the run over (:mod:`interlock.engine.fence`).
        """
        tool = self.registry.get(call.name)
        if tool is None or tool.check is not None:
            return False
        if plain_refusal(tool, employee, call, args, on) is not None:
            return False  # ``execute`` refuses it, with its event
        frontend = tool.execution == "frontend"
        return self._claim_on(
            session, run_id, call, args, frontend, (decision, decided_by), fenced=True
        )

    def _actions_on(self, user_id: str, employee_slug: str) -> bool:
        """The person's "AI actions" switch for the employee (database thread)."""
        with self.db.session() as session:
            return actions_on(session, user_id, employee_slug)

    def _refuse(
        self, run_id: str, call: ToolCall, refusal: ToolError, fenced: bool = False
    ) -> None:
        """Close a call that was never claimed as ``failed`` (not run); database thread.

        ``fenced``: only while this worker still runs ``run_id`` (else ``RunTakenOver``).
        """
        with self.db.session() as session:
            if fenced:
                hold_run(session, run_id, self.bus.origin)
            closed = session.exec(  # type: ignore[call-overload]
                update(ToolCall)
                .where(col(ToolCall.id) == call.id, col(ToolCall.status).in_(_CLAIMABLE))
                .values(status=ToolCallStatus.failed)
            ).rowcount
            if closed != 1:
                session.rollback()
                return
            # A new session: this reads the row as updated above (no refresh needed).
            fresh = session.get(ToolCall, call.id)
            assert fresh is not None
            close_call(session, self.bus, self.registry, fresh, **failure(refusal), run_id=run_id)
            self.bus.commit(session)

    def _claim(
        self,
        run_id: str,
        call: ToolCall,
        args: Any,
        frontend: bool,
        decided: _Decided,
        fenced: bool = False,
    ) -> bool:
        """Move the call to ``running`` (or ``awaiting_client``) with a compare-and-set.

        A blocking call (database thread).
        """
        with self.db.session() as session:
            if not self._claim_on(session, run_id, call, args, frontend, decided, fenced=fenced):
                session.rollback()
                return False
            self.bus.commit(session)
        return True

    def _claim_on(
        self,
        session: Session,
        run_id: str,
        call: ToolCall,
        args: Any,
        frontend: bool,
        decided: _Decided,
        *,
        fenced: bool = False,
    ) -> bool:
        """Stage the claim of :meth:`_claim` on ``session``; False when another got it.

        ``decided``: the call's decision and its decider's name, each as the caller has it
        (:data:`~interlock.engine.records.UNLOADED`: read here for the event).

        ``fenced``: first hold the run (:func:`~interlock.engine.fence.hold_run`), raising
        ``RunTakenOver`` when this worker no longer runs it.
        """
        if fenced:
            hold_run(session, run_id, self.bus.origin)
        status = ToolCallStatus.awaiting_client if frontend else ToolCallStatus.running
        # One round trip: the claim, and the conversation's event sequence held after it (in
        # the order a bump locks: the call, then the conversation), for the event below.
        claim = {"call_id": call.id, "new_status": str(status), "args": args, "now": utcnow()}
        sent = send(session, (_CLAIM, claim), self.bus.hold_seq(call.conversation_id))
        claimed = sent[0].first()
        if claimed is None:
            return False
        self.bus.held(session, call.conversation_id, sent[1])
        fresh = CallValues(claimed._asdict())
        decision, decided_by = decided
        out = view(session, self.registry, fresh, decision, decided_by=decided_by)
        event = (
            ToolCallAwaitingClient(run_id=run_id, tool_call=out)
            if frontend
            else ToolCallRunning(run_id=run_id, tool_call=out)
        )
        self.bus.stage(session, call.conversation_id, event)
        return True

    def close_decided(
        self, run_id: str, call: ToolCall, decision: Decision, fenced: bool = False
    ) -> None:
        """Close a rejected call, or a question answered with ``respond`` (its text is the result).

        A blocking call (database thread). ``fenced`` (a run's step): only while this worker
        still runs ``run_id``.

        Raises:
            RunTakenOver: ``fenced`` and another worker took the run over (nothing written).
        """
        with self.db.session() as session:
            if fenced:
                hold_run(session, run_id, self.bus.origin)
            fresh = session.get(ToolCall, call.id)
            if fresh is None or fresh.status != ToolCallStatus.interrupted:
                return
            if decision.type == DecisionType.reject:
                close_call(
                    session,
                    self.bus,
                    self.registry,
                    fresh,
                    status=ToolCallStatus.rejected,
                    text=rejected_text(decision.message),
                    error_code="rejected",
                    error_message=decision.message or "Rejected by the person.",
                    run_id=run_id,
                    decision=decision,
                )
            else:  # respond: the person's text is the result; the tool does not run
                close_call(
                    session,
                    self.bus,
                    self.registry,
                    fresh,
                    status=ToolCallStatus.succeeded,
                    text=answer_text(self.registry, fresh, decision.message or ""),
                    run_id=run_id,
                    decision=decision,
                )
            self.bus.commit(session)
