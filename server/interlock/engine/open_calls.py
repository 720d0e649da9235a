"""Closing a conversation's open tool calls at once: a new message, a cancel, a run's end.

Also the lock those closers take first (PostgreSQL), so that every transaction writing a
conversation locks in one order: its run, its tool calls (by message, then index), then the
conversation's row. One call's close is :func:`~interlock.engine.records.close_call`.
"""

from __future__ import annotations

from sqlalchemy import bindparam, update
from sqlalchemy.sql import Executable
from sqlmodel import Session, col, select

from interlock.audit import SYSTEM_DECIDER, Channel, Outcome, record_outcome
from interlock.engine.records import OPEN_STATUSES, close_call
from interlock.engine.tool_texts import (
    STOPPED_HINT,
    CloseReason,
    as_sentence,
    cancelled_text,
    error_text,
    stopped_message,
)
from interlock.storage import ToolCall, ToolCallStatus
from interlock.storage.write_behind import Params, execute
from interlock.streaming import EventBus
from interlock.tools import ToolRegistry

_OPEN_CALLS = select(ToolCall).where(
    ToolCall.conversation_id == bindparam("conversation_id"),
    col(ToolCall.status).in_([s.value for s in OPEN_STATUSES]),
)
"""A conversation's open calls, prebuilt (read by every new message). Unordered: an ORDER BY
would lead SQLite to walk the conversation's calls in order on ``(conversation_id, message_id,
index)`` rather than read only the open ones on ``(conversation_id, status)``; the few rows
are sorted in Python."""
ANY_OPEN_CALL = (
    select(ToolCall.id)
    .where(
        ToolCall.conversation_id == bindparam("conversation_id"),
        col(ToolCall.status).in_([s.value for s in OPEN_STATUSES]),
    )
    .limit(1)
)
"""Prebuilt, read with Core first: a new message usually finds no open call, and then loads
no objects."""
_LOCK_OPEN_CALLS = (
    select(ToolCall.id)
    .where(
        ToolCall.conversation_id == bindparam("conversation_id"),
        col(ToolCall.status).in_([s.value for s in OPEN_STATUSES]),
    )
    .order_by(col(ToolCall.message_id), col(ToolCall.index))
    .with_for_update(key_share=True)
)
"""Locks a conversation's open calls (``FOR NO KEY UPDATE``, as their ``UPDATE`` does), in
the order :func:`cancel_open_calls` closes them (prebuilt)."""


def lock_open_calls(conversation_id: str) -> tuple[Executable, Params]:
    """The statement locking ``conversation_id``'s open calls, for a transaction that locks
    the conversation's row before it closes them (PostgreSQL; send it with the round trip
    that locks the conversation, before that lock).

    The lock order of every transaction writing a conversation is its run's row, then its
    tool calls (by message, then index), then the conversation's row (a decision locks its
    call, then claims the conversation; events are numbered at the commit). A transaction
    that claims the conversation and then closes its open calls (a new message, a cancelled
    or failed run's end) would otherwise hold the conversation while waiting for a call a
    decision holds, and the decision wait for the conversation: a deadlock, which
    PostgreSQL ends by failing one of them.
    """
    return _LOCK_OPEN_CALLS, {"conversation_id": conversation_id}


def cancel_open_calls(
    session: Session,
    bus: EventBus,
    registry: ToolRegistry,
    conversation_id: str,
    reason: str | CloseReason,
    run_id: str | None = None,
    *,
    decider: str = SYSTEM_DECIDER,
    channel: str = Channel.system,
    any_open: bool | None = None,
) -> list[str]:
    """Close every open call of a conversation: ``cancelled`` when its tool never started.

    A call caught ``running`` (its tool had started, so its effect may have happened) is
    never called ``cancelled``: it is closed ``failed`` with ``outcome_unknown`` and the
    words of :func:`~interlock.engine.tool_texts.stopped_message`, as a call caught running
    by a stopped server is (:mod:`~interlock.engine.recovery`); it is never run again, and a
    result its tool still returns is not stored (:meth:`CallExecutor._store_outcome
    <interlock.engine.calls.CallExecutor._store_outcome>` logs it).

    ``reason`` says why, for each reader (:class:`~interlock.engine.tool_texts.CloseReason`;
    a string: the same fragment for all). ``run_id`` is the run doing it (each call's own run when omitted). Each closed call gets an
    audit record naming ``decider`` (a user id when a person caused it) and ``channel``.
    ``any_open``: whether :data:`ANY_OPEN_CALL` found one, when the caller read it in this
    transaction (read here when None).

    Returns:
        The ids of the calls closed. The caller commits.
    """
    params = {"conversation_id": conversation_id}
    session.flush()  # what reading the calls through the session would flush first
    if any_open is None:
        any_open = execute(session, ANY_OPEN_CALL, params).first() is not None
    if not any_open:
        return []
    calls = sorted(
        session.exec(_OPEN_CALLS, params=params).all(),
        key=lambda call: (call.message_id, call.index),
    )
    why = reason if isinstance(reason, CloseReason) else CloseReason.same(reason)
    closed: list[ToolCall] = []
    for call in calls:
        started = _take_open(session, call)
        if started is None:
            continue
        closed.append(call)
        if started:
            message, said = stopped_message(why.owner), stopped_message(why.record)
            status, code = ToolCallStatus.failed, "outcome_unknown"
            text = error_text(code, stopped_message(why.model), STOPPED_HINT)
        else:
            message, said = as_sentence(why.owner), as_sentence(why.record)
            status, code = ToolCallStatus.cancelled, "cancelled"
            text = cancelled_text(why.model)
        record_outcome(
            session,
            call=call,
            decider=decider,
            channel=channel,
            outcome=Outcome.cancelled,
            reason=said,
            proposed_args=call.proposed_args,
            executed_args=call.executed_args,
        )
        close_call(
            session,
            bus,
            registry,
            call,
            status=status,
            text=text,
            error_code=code,
            error_message=message,
            run_id=run_id,
        )
    return [call.id for call in closed]


_NOT_STARTED = [s.value for s in OPEN_STATUSES if s != ToolCallStatus.running]


def _take_open(session: Session, call: ToolCall) -> bool | None:
    """Take an open call for closing with a compare-and-set on its status.

    Two closers racing on database threads (two cancels, a cancel and a new message) never
    both close it: the later one's ``UPDATE`` waits for the earlier commit, then matches
    nothing. A call read before its run claimed it (``pending`` then, ``running`` now) is
    taken as running, its row read again (``executed_args``, ``started_at``).

    Returns:
        True when taken while ``running`` (its tool had started; status set ``failed``),
        False when taken before its tool started (``cancelled``), None when already closed.
    """
    tries = (True,) if call.status == ToolCallStatus.running else (False, True)
    for running in tries:
        taken = session.exec(  # type: ignore[call-overload]
            update(ToolCall)
            .where(
                col(ToolCall.id) == call.id,
                col(ToolCall.status) == ToolCallStatus.running
                if running
                else col(ToolCall.status).in_(_NOT_STARTED),
            )
            .values(status=ToolCallStatus.failed if running else ToolCallStatus.cancelled)
        ).rowcount
        if taken == 1:
            if running and len(tries) > 1:
                session.refresh(call)
            return running
    return None
