"""Storing a model step's answer: the assistant message, its calls and what follows, at once.

One transaction per model step: the streamed text's last piece, the assistant message, its
tool calls (failed at once when refused, closed by the loop guard when repeated, recorded
``allowed`` for ``ALLOW``, interrupted for ``ASK``) with their events, and, when the run
stops here, its terminal event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sqlmodel import Session

from interlock.audit import REPEAT_DECIDER, Channel, Outcome, record_allowed, record_outcome
from interlock.employees import Employee
from interlock.engine.fence import hold_run
from interlock.engine.grants import apply_grant
from interlock.engine.loop_guard import (
    MAX_REPEATS_PER_RUN,
    REPEAT_ERROR_CODE,
    check_repeats,
    declined_before,
    repeat_text,
    run_repeats,
)
from interlock.engine.preflight import Prepared
from interlock.engine.records import close_call, view
from interlock.engine.terminals import stage_end
from interlock.engine.tool_texts import error_text
from interlock.engine.turn import TurnPlan
from interlock.storage import Message, MessageRole, RunStatus, ToolCall, ToolCallStatus
from interlock.storage.rows import defer_rows, insert_rows, new_row
from interlock.storage.views import message_out
from interlock.streaming.events import MessageCompleted, MessageDelta, ToolCallCreated
from interlock.tools import Permission, Tool, ToolRegistry

if TYPE_CHECKING:
    from interlock.engine.graph import GraphDeps, Turn


def insert_reply(session: Session, conversation_id: str, run_id: str, text: str) -> Message:
    """Insert run ``run_id``'s assistant message holding ``text``, in ``session``'s
    transaction; returns it with its id."""
    message = new_row(
        Message,
        conversation_id=conversation_id,
        run_id=run_id,
        role=MessageRole.assistant,
        content=text,
    )
    insert_rows(session, [message])
    assert message.id is not None
    return message


class AnswerStore:
    """Writes a model step's answer (see the module docstring).

    Args:
        deps: The graph's dependencies.
    """

    def __init__(self, deps: GraphDeps) -> None:
        self.d = deps

    def store(
        self,
        turn: Turn,
        text: str,
        prepared: list[Prepared],
        plan: TurnPlan,
        employee: Employee,
        *,
        tail: Sequence[MessageDelta] = (),
        end: bool = True,
    ) -> str:
        """Store the assistant message and its calls, failing refused ones at once.

        A blocking call (database thread), one transaction with the streamed text's last
        piece (``tail``) and, when ``end``, the run's terminal event if the run stops here:
        ``run.completed`` for an answer without calls, ``run.paused`` when calls wait for the
        person and none can run now (no decision can exist yet for calls created here, so
        nothing is missed).

        Returns:
            The outcome: ``continue`` (calls to run), ``model`` (every call closed already),
            ``paused`` or ``completed``.

        Raises:
            RunTakenOver: Another worker took the run over (nothing was written).
            InterlockError: ``repeated_rejected_call`` once the run's second call was closed by
                the loop guard (after the answer is stored).
        """
        d = self.d
        conversation_id, run_id = turn.conversation_id, turn.run_id
        with d.db.session() as session:
            # Written only while this worker still runs the run (engine.fence); the
            # conversation's event sequence held after it (the order every writer takes
            # them in), both with the answer's insert below.
            hold_run(session, run_id, d.bus.origin)
            d.bus.hold_soon(session, conversation_id)
            for delta in tail:
                d.bus.stage(session, conversation_id, delta)
            message = insert_reply(session, conversation_id, run_id, text)
            calls: list[tuple[ToolCall, Prepared]] = []
            repeated = False
            for index, item in enumerate(prepared):
                tool, proposal = item.tool, item.proposal
                call = new_row(
                    ToolCall,
                    id=item.call_id,
                    conversation_id=conversation_id,
                    message_id=message.id,
                    run_id=run_id,
                    index=index,
                    name=_stored_name(d.registry, tool, proposal.name),
                    permission=str(plan.permissions[tool.name]) if tool else "ASK",
                    proposed_args=proposal.args,
                    raw_args=proposal.raw_args if proposal.args is None else None,
                )
                session.add(call)
                if item.problem is None and tool is not None:
                    # The new calls are written once, at the commit (an interrupted call: one
                    # INSERT with its status and deadline, not an INSERT and an UPDATE).
                    with session.no_autoflush:
                        apply_grant(
                            session,
                            call,
                            tool,
                            str(plan.permissions[tool.name]),
                            user_id=turn.user_id,
                            employee=employee,
                        )
                calls.append((call, item))
            # New calls: no decision can exist yet (saves a query per call).
            views = [view(session, d.registry, call, None) for call, _ in calls]
            d.bus.stage(
                session,
                conversation_id,
                MessageCompleted(run_id=run_id, message=message_out(message, views)),
            )
            for call_view in views:
                d.bus.stage(
                    session, conversation_id, ToolCallCreated(run_id=run_id, tool_call=call_view)
                )
            for call, item in calls:
                tool = item.tool
                if item.problem is not None:
                    session.flush()  # the call's row, for its tool message
                    close_call(
                        session,
                        d.bus,
                        d.registry,
                        call,
                        status=ToolCallStatus.failed,
                        text=error_text(item.code, item.problem, item.hint),
                        result_data={"errors": item.field_errors} if item.field_errors else None,
                        error_code=item.code,
                        error_message=item.problem,
                    )
                elif (
                    tool is not None
                    and plan.permissions[tool.name] == Permission.ASK
                    and call.grant_id is None
                    and _declined_before(session, conversation_id, tool, call.proposed_args)
                ):
                    session.flush()  # the call's row, for its tool message
                    self._close_repeat(session, run_id, call, tool)
                    repeated = True
                elif tool is not None and plan.permissions[tool.name] == Permission.ALLOW:
                    record_allowed(session, call)
                elif (
                    tool is not None
                    and plan.permissions[tool.name] == Permission.ASK
                    and call.grant_id is None
                ):
                    call.confirmation = item.confirmation
                    d.deadlines.interrupt(session, d.bus, d.registry, call, employee, run_id)
            # Only a step that closed a repeat can reach the limit: count only then.
            repeats = run_repeats(session, run_id) if repeated else 0
            outcome = _outcome([call for call, _ in calls], bool(prepared))
            if end and repeats < MAX_REPEATS_PER_RUN and outcome in ENDED:
                waiting = [c.id for c, _ in calls if c.status == ToolCallStatus.interrupted]
                status = RunStatus.paused if outcome == "paused" else RunStatus.completed
                stage_end(
                    session,
                    d.bus,
                    d.registry,
                    run_id,
                    conversation_id,
                    status,
                    pending=waiting,
                    run_held=True,
                )
            _insert_new_calls(session, [call for call, _ in calls])
            d.bus.commit(session)
        check_repeats(repeats)
        return outcome

    def _close_repeat(self, session: Session, run_id: str, call: ToolCall, tool: Tool) -> None:
        """Close a call the person already declined as ``rejected`` by ``policy:repeat``."""
        reason = "the person already declined this exact call earlier in the conversation"
        record_outcome(
            session,
            call=call,
            decider=REPEAT_DECIDER,
            channel=Channel.system,
            outcome=Outcome.rejected,
            reason=reason,
            proposed_args=call.proposed_args,
            executed_args=None,
        )
        close_call(
            session,
            self.d.bus,
            self.d.registry,
            call,
            status=ToolCallStatus.rejected,
            text=repeat_text(tool),
            error_code=REPEAT_ERROR_CODE,
            error_message=f"Not asked again: {reason}.",
            run_id=run_id,
        )


def _insert_new_calls(session: Session, calls: list[ToolCall]) -> None:
    """Insert the calls not written yet with Core (:func:`defer_rows`: on PostgreSQL with the
    events) rather than at the commit's flush; they leave the session (nothing reads them
    through it afterwards)."""
    new = [call for call in calls if call in session.new]
    for call in new:
        session.expunge(call)
    if new:
        defer_rows(session, new)


def _declined_before(session: Session, conversation_id: str, tool: Tool, args: Any) -> bool:
    """:func:`declined_before` without flushing the new calls first (they are not declined)."""
    with session.no_autoflush:
        return declined_before(session, conversation_id, tool, args) is not None


ENDED = ("paused", "completed")
"""Outcomes after which the run already has its terminal event."""


def _outcome(calls: list[ToolCall], proposed: bool) -> str:
    """What follows a stored answer with ``calls`` (see :meth:`AnswerStore.store`)."""
    if not proposed:
        return "completed"
    if any(c.status == ToolCallStatus.pending for c in calls):
        return "continue"
    if any(c.status == ToolCallStatus.interrupted for c in calls):
        return "paused"
    return "model"


def _stored_name(registry: ToolRegistry, tool: Tool | None, provider_name: str) -> str:
    """The registry name of a proposed call (also for tools not offered), else as proposed."""
    known = tool or registry.by_provider_name(provider_name)
    return known.name if known else provider_name
