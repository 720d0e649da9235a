"""Decisions on interrupted tool calls: approve, edit, reject, respond.

The server re-checks everything: who may decide (the owner or an approver, else 404; see
``interlock.approvals.access``), state (a call that is not interrupted, already decided or
past its deadline answers 409 with the recorded outcome) and, for ``edit``, the tool's JSON
Schema (422 with per-field errors; the pause stays open). Of two concurrent decisions on one
call exactly one wins (``decisions.tool_call_id`` is unique), and of a decision and the
expiry sweeper exactly one wins (the guarded update of ``tool_calls.decided_at``, see
``interlock.engine.expiry``).

What a decision body must hold (its shape, and its content against the tool) is checked in
:mod:`interlock.engine.decision_checks`; this module applies a checked decision.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import bindparam, func, or_, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from interlock.approvals.access import decider_role
from interlock.audit import Channel, Outcome, is_pick, record_outcome
from interlock.employees import Employee
from interlock.engine.decision_checks import (
    MAX_DECISION_MESSAGE_CHARS,
    DecisionIn,
    check_content,
    check_offered,
    check_remember,
    check_shape,
)
from interlock.engine.decision_read import read_call_to_decide
from interlock.engine.decision_refusals import refusal
from interlock.engine.outside import MCP_CHANNEL
from interlock.engine.records import view
from interlock.engine.resumes import claim_resume_in, resume_claim, settle_resume_claim
from interlock.engine.runner import Engine
from interlock.errors import BadRequest, Conflict, NotFound
from interlock.permissions import actions_on, create_grant, is_action
from interlock.storage import (
    Conversation,
    Decision,
    DecisionType,
    Grant,
    ToolCall,
    ToolCallApproval,
    ToolCallStatus,
)
from interlock.storage.models import utcnow
from interlock.storage.rows import insert_rows, insert_statement, new_row
from interlock.storage.views import ToolCallOut
from interlock.storage.write_behind import Sent, send
from interlock.streaming.events import ToolCallApproved, ToolCallDecided

__all__ = ["MAX_DECISION_MESSAGE_CHARS", "DecisionIn", "decide", "remember"]

_tool_calls = ToolCall.__table__  # type: ignore[attr-defined]
_LOCK_UNDECIDED = (
    update(_tool_calls)
    .where(
        _tool_calls.c.id == bindparam("call_id"),
        _tool_calls.c.status == str(ToolCallStatus.interrupted),
        _tool_calls.c.decided_at.is_(None),
        or_(_tool_calls.c.expires_at.is_(None), _tool_calls.c.expires_at > bindparam("now")),
    )
    .values(decided_at=None)
)
"""Locks the call's row while it is undecided and before its deadline (a Core statement: the
loaded call's attributes are left as they are, which this no-op write does not change)."""

_DECIDE_UNDECIDED = _LOCK_UNDECIDED.values(decided_at=bindparam("now"))
""":data:`_LOCK_UNDECIDED` that also sets ``decided_at``: for a decision that decides the call
at once (not one approval of several), so the flush has no second update of the row."""

log = logging.getLogger(__name__)


_OUTCOMES = {
    DecisionType.approve: Outcome.approved,
    DecisionType.edit: Outcome.edited,
    DecisionType.reject: Outcome.rejected,
    DecisionType.respond: Outcome.responded,
}


async def decide(
    engine: Engine,
    user_id: str,
    tool_call_id: str,
    body: DecisionIn,
    channel: str = Channel.api,
) -> ToolCallOut:
    """Record a decision (and its audit record) and resume the run when it was the last one awaited.

    Args:
        engine: The engine.
        user_id: Who decides.
        tool_call_id: The call decided.
        body: The decision.
        channel: Where it came from (``web``, ``api``, ``mcp``), for the audit log.

    Who: the conversation's owner or one of the employee's approvers (anyone else: 404). A
    call with ``require_approver`` may not be approved by its owner (403 ``approver_required``);
    one with ``approvals_required`` > 1 needs that many distinct people's approvals (each
    recorded, and audited: ``approval`` records, then the last one's ``approved``; the last
    one decides), and any reject ends it.

    Returns:
        The tool call with its decision, or with the approvals so far when more are needed.

    Raises:
        NotFound: Unknown call, or the caller may not decide it.
        Forbidden: ``approver_required``: the owner tried to approve a call needing an approver.
        Conflict: ``not_interrupted``; ``details`` carries ``status``, the recorded
            ``decision`` and the call (``tool_call``; an ``expired`` call's outcome);
            ``already_approved`` for a second approval by the same person.
        BadRequest: ``invalid_args`` with ``details.errors`` (edit; respond to a tool with
            ``check_response``), ``invalid_request`` (a missing field),
            ``edit_needs_one_approval`` (an edit of a call needing several approvals: each
            person approves the same arguments; ``details.approvals_required``), or
            ``cannot_remember`` (``remember`` on a reject or
            respond, by an approver, on a call needing an approver or several approvals, or
            for a tool that cannot be granted).
        Conflict: ``actions_off`` when approving a write call while the owner's "AI actions"
            switch for the employee is off; ``employee_disabled`` or ``employee_deleted``
            (any decision) when the conversation's employee is disabled or was deleted.
    """
    check_shape(body)
    engine.use_running_loop()  # the run a decision resumes starts from the database thread
    out, resume = await engine.db.run_transaction(
        _record, engine, user_id, tool_call_id, body, channel
    )
    if resume is not None:
        # Not resumed with the decision (another call waits, a run is still active, or an
        # MCP record): look again in a task of its own, after the answer.
        engine.schedule_resume(*resume)
    return out


def _record(
    engine: Engine, user_id: str, tool_call_id: str, body: DecisionIn, channel: str
) -> tuple[ToolCallOut, tuple[str, int, str] | None]:
    """The transaction of :func:`decide` (database thread).

    Returns:
        ``(call view, (conversation_id, message_id, owner_id))`` for the caller to resume
        later; None once resumed here (the run claimed, ``run.started`` committed with the
        decision) or after an approval that still needs more.
    """
    with engine.db.session() as session:
        found = read_call_to_decide(session, tool_call_id, user_id)
        call, conversation = (found.call, found.conversation) if found else (None, None)
        employee = engine.employees.get(conversation.employee) if conversation else None
        role = (
            decider_role(session, user_id, conversation, employee)
            if call is not None and conversation is not None
            else None
        )
        if found is None or call is None or conversation is None or role is None:
            log.info("decision refused (not_found): tool call %s, user %s", tool_call_id, user_id)
            raise NotFound("No such tool call.")
        now = engine.deadlines.now()
        if (
            call.status != ToolCallStatus.interrupted
            or found.decided
            or call.decided_at is not None
            or (call.expires_at is not None and call.expires_at <= now)
        ):
            session.rollback()
            raise refusal(engine, tool_call_id, now, user_id)
        if employee is None:
            # Deleted meanwhile (its waiting calls close with it): a deleted employee runs
            # nothing, whoever decides and through whichever channel.
            raise Conflict(
                "This conversation's employee was deleted; nothing of it runs.",
                code="employee_deleted",
            )
        if employee.disabled:
            raise Conflict(f"{employee.name} is disabled; nothing runs.", code="employee_disabled")
        check_offered(engine, call, body, owner=role == "owner")
        approving = body.type in (DecisionType.approve, DecisionType.edit)
        tool = engine.registry.get(call.name)
        if approving and tool is not None and is_action(tool) and not found.actions_on:
            raise Conflict(
                f"AI actions for {employee.name} are off, so this cannot run. Turn them on "
                "under Permissions, or reject the call.",
                code="actions_off",
            )
        check_remember(call, body, owner=role == "owner")
        check_content(engine, call, body)
        # Lock the row: refused past the deadline (server clock) or once decided elsewhere. A
        # call needing several approvals is decided only by the last one (below).
        several = body.type == DecisionType.approve and call.approvals_required > 1
        decision = new_row(  # as Decision(...) builds it, without the constructor's work
            Decision,
            tool_call_id=call.id,
            conversation_id=call.conversation_id,
            type=body.type,
            user_id=user_id,
            args=body.args if body.type == DecisionType.edit else None,
            message=body.message,
            proposed_args=call.proposed_args,
        )
        params = {"call_id": call.id, "now": now}
        claim = (
            resume_claim(engine, call.conversation_id, call.message_id, found.others_wait)
            if not several and conversation.channel != MCP_CHANNEL
            else None
        )
        sent: list[Sent] = []
        try:
            if several:
                locked = session.connection().execute(_LOCK_UNDECIDED, params).rowcount
            else:
                # One round trip: the decision goes with the lock, the conversation's event
                # sequence is held (its events are numbered without a trip of their own) and
                # the resume run claims the conversation; all undone when the lock is refused.
                sent = send(
                    session,
                    (_DECIDE_UNDECIDED, params),
                    insert_statement(decision),
                    engine.bus.hold_seq(call.conversation_id),
                    *(claim[1] if claim is not None else ()),
                )
                locked = sent[0].rowcount
        except IntegrityError:  # decided meanwhile (or the call deleted): refused below
            locked = 0
        if locked != 1:
            session.rollback()
            raise refusal(engine, tool_call_id, now, user_id)
        if sent:
            engine.bus.held(session, call.conversation_id, sent[2])
        if several:
            given = _add_approval(session, call, user_id)
            if given < call.approvals_required:
                # Each approval is in the audit log (who, when, channel); the last one is the
                # call's ``approved`` record, the ones before it ``approval`` records.
                record_outcome(
                    session,
                    call=call,
                    decider=user_id,
                    channel=channel,
                    outcome=Outcome.approval,
                    reason=body.message,
                    proposed_args=call.proposed_args,
                    executed_args=None,
                )
                out = view(session, engine.registry, call, None)
                engine.bus.stage(
                    session,
                    call.conversation_id,
                    ToolCallApproved(run_id=call.run_id, tool_call=out),
                )
                engine.bus.commit(session)
                return out, None
        try:
            if several:
                call.decided_at = now
                session.add(call)
                insert_rows(session, [decision])
            else:  # written with the lock already, as the decision
                set_committed_value(call, "decided_at", now)
            session.flush()
            if body.remember is not None:
                remember(engine, session, user_id, call, conversation, employee, body)
        except IntegrityError:
            session.rollback()
            raise refusal(engine, tool_call_id, now, user_id) from None
        runs = body.type in (DecisionType.approve, DecisionType.edit)
        record_outcome(
            session,
            call=call,
            decider=user_id,
            channel=channel,
            outcome=Outcome.picked
            if body.type == DecisionType.edit and is_pick(call.proposed_args, body.args)
            else _OUTCOMES[DecisionType(body.type)],
            reason=body.message,
            proposed_args=call.proposed_args,
            executed_args=(body.args if body.type == DecisionType.edit else call.proposed_args)
            if runs
            else None,
        )
        out = view(session, engine.registry, call, decision, decided_by=found.decider_name)
        engine.bus.stage(
            session, call.conversation_id, ToolCallDecided(run_id=call.run_id, tool_call=out)
        )
        # The last decision awaited resumes the run in this transaction: ``run.started``
        # goes out with ``tool_call.decided`` while the run's steps wait for their turn.
        if claim is not None:  # claimed with the lock: settled from what it returned
            run_id = settle_resume_claim(engine, session, claim[0], *sent[3:5])
        elif several and conversation.channel != MCP_CHANNEL:
            run_id = claim_resume_in(
                engine, session, call.conversation_id, call.message_id, found.others_wait
            )
        else:
            run_id = None
        engine.bus.commit(session)
        if run_id is not None:
            engine.spawn_soon(run_id, call.conversation_id, conversation.owner_id, start="tools")
            return out, None
        return out, (call.conversation_id, call.message_id, conversation.owner_id)


def _add_approval(session: Session, call: ToolCall, user_id: str) -> int:
    """Record ``user_id``'s approval of ``call`` (row locked); return the approvals given.

    Raises:
        Conflict: ``already_approved`` when this person approved the call before.
    """
    approved_before = session.exec(
        select(ToolCallApproval.id).where(
            ToolCallApproval.tool_call_id == call.id, ToolCallApproval.user_id == user_id
        )
    ).first()
    if approved_before is not None:
        session.rollback()
        raise Conflict(
            f"You already approved this call; it needs {call.approvals_required} different "
            "people's approvals.",
            code="already_approved",
        )
    session.add(
        ToolCallApproval(
            tool_call_id=call.id, conversation_id=call.conversation_id, user_id=user_id
        )
    )
    session.flush()
    return int(
        session.exec(
            select(func.count())
            .select_from(ToolCallApproval)
            .where(ToolCallApproval.tool_call_id == call.id)
        ).one()
    )


def remember(
    engine: Engine,
    session: Session,
    user_id: str,
    call: ToolCall,
    conversation: Conversation,
    employee: Employee,
    body: DecisionIn,
) -> Grant:
    """Make the grant a decision's ``remember`` asks for (in the decision's transaction).

    Raises:
        BadRequest: ``cannot_remember`` when the decider is not the conversation's owner (a
            grant is the owner's own choice), or the tool cannot be granted.
    """
    assert body.remember is not None
    if user_id != conversation.owner_id:
        raise BadRequest(
            "Only the conversation's owner can choose not to be asked again.",
            code="cannot_remember",
        )
    days = body.remember.days or engine.settings.grant_days
    args = body.args if body.type == DecisionType.edit else call.proposed_args
    now = utcnow()
    return create_grant(
        session,
        registry=engine.registry,
        employee=employee,
        user_id=conversation.owner_id,
        tool_name=call.name,
        scope=body.remember.scope,
        conversation=conversation,
        args=args if body.remember.exact_args and isinstance(args, dict) else None,
        expires_at=now + timedelta(days=days),
        source_call_id=call.id,
        actions_on=actions_on(session, conversation.owner_id, employee.slug),
        now=now,
    )
