"""Repair of runs whose server process stopped: at start-up and when a worker's lease lapses.

A run is stale when it is ``running`` and its owner (``runs.owner_id``) is not a live worker
(see ``engine.leases``). Its calls caught ``running`` are failed with ``outcome_unknown``
(never re-run: an approved call executes at most once); calls never started are failed too;
``interrupted`` calls stay open, so a pause survives, and so do ``awaiting_client`` calls
(a frontend call's result may still come from the browser). The reply it was streaming, if
any, is stored as its message (:func:`keep_cut_reply`, shown cut off). The run ends
``failed`` (``server_restarted``). Then the conversation is picked up again by this process: a run that
was answering or working goes on (a new run, trigger ``takeover``, starting where the stored
rows say: decided calls run, otherwise the model answers), unless it already was such a
takeover (no endless retry of a run that kills its worker). Conversations whose calls were
all decided before the stop get a resume run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import func, literal_column, update
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from interlock.engine.answers import insert_reply
from interlock.engine.records import close_call, waiting_for_person
from interlock.engine.terminals import stage_end
from interlock.engine.tool_texts import (
    SERVER_STOPPED,
    STOPPED_HINT,
    error_text,
    stopped_message,
)
from interlock.errors import InterlockError
from interlock.storage import (
    Conversation,
    Decision,
    Run,
    RunStatus,
    ToolCall,
    ToolCallStatus,
    Worker,
)
from interlock.storage.views import message_out
from interlock.streaming.event_rows import draft_of_run
from interlock.streaming.events import MessageCompleted, RunStarted
from interlock.streaming.listener import CONTROL_CHANNEL

if TYPE_CHECKING:
    from interlock.engine.runner import Engine

RESTART_REASON = stopped_message(SERVER_STOPPED)
"""A call caught running: ``Stopped while running (the server stopped): it may have happened.
It was not run again.``, as a call stopped by a cancel or a new message says it."""
NOT_STARTED_REASON = "The server stopped before this started, and it was not started later."
SERVER_STOPPED_RUN = "The server stopped while the employee was working on this."
"""The ``run.failed`` message (``server_restarted``) of a run a stopped server left."""
SERVER_RESTARTED = "server_restarted"
"""The error code of such a run (``runs.error_code``)."""
_runs = Run.__table__  # type: ignore[attr-defined]
_workers = Worker.__table__  # type: ignore[attr-defined]
_RUNNING_RUNS = (
    select(Run, Conversation.owner_id)
    .join(Conversation, col(Conversation.id) == col(Run.conversation_id))
    # A literal, as in the partial index ``ix_runs_running`` (only its rows are read): a
    # PostgreSQL generic plan of a bound ``status = $1`` could not use that index.
    .where(col(Run.status) == literal_column(f"'{RunStatus.running.value}'"))
)
"""The running runs with their conversation's owner (:func:`stale_runs`)."""
TAKEOVER = "takeover"
"""``runs.trigger`` of a run that goes on with a stopped process's work."""


@dataclass
class Recovery:
    """What a repair found to start again (the caller starts it on the event loop).

    Attributes:
        repaired: Ids of the stale runs ended.
        resume: ``(conversation_id, message_id, owner_id)`` of paused messages that may be
            ready to resume (:meth:`Engine.resume_if_decided`).
        takeover: ``(conversation_id, owner_id)`` of conversations to go on with.
    """

    repaired: list[str] = field(default_factory=list)
    resume: list[tuple[str, int, str]] = field(default_factory=list)
    takeover: list[tuple[str, str]] = field(default_factory=list)


def recover_runs(
    engine: Engine, live_workers: set[str], cutoff: datetime | None = None
) -> Recovery:
    """Repair every running run whose owner is not in ``live_workers`` (a blocking call).

    Args:
        engine: The engine.
        live_workers: Ids of the workers whose lease is current (this one included).
        cutoff: Heartbeats older than this are dead (UTC). Each run is repaired only if, in
            the repair's own transaction, it still runs under the same owner and that owner's
            heartbeat is still older (a heartbeat late by a moment, or a run that ended
            meanwhile, is left alone). None: no heartbeat is read again (start-up).
    """
    found = Recovery()
    for run_id, conversation_id, trigger, owner, owner_id in stale_runs(engine, live_workers):
        if not repair_run(engine, run_id, conversation_id, owner, cutoff):
            continue
        found.repaired.append(run_id)
        if trigger != TAKEOVER:
            found.takeover.append((conversation_id, owner_id))
    with engine.db.session() as session:
        # Only messages none of whose calls still waits for a decision: a thousand paused
        # conversations must not cost a thousand resume attempts at start-up.
        other = aliased(ToolCall)
        waiting = (
            select(other.id)
            .outerjoin(Decision, col(Decision.tool_call_id) == other.id)
            .where(
                other.message_id == ToolCall.message_id,
                other.status == ToolCallStatus.interrupted,
                col(Decision.id).is_(None),
            )
        )
        candidates = session.exec(
            select(ToolCall.conversation_id, ToolCall.message_id, Conversation.owner_id)
            .join(Conversation, col(Conversation.id) == col(ToolCall.conversation_id))
            .where(
                ToolCall.status == ToolCallStatus.interrupted,
                col(Conversation.active_run_id).is_(None),
                ~waiting.exists(),
            )
            .distinct()
        ).all()
    taken = {c for c, _o in found.takeover}
    found.resume = [(c, m, o) for c, m, o in candidates if c not in taken]
    return found


def stale_runs(
    engine: Engine, live_workers: set[str]
) -> list[tuple[str, str, str, str | None, str]]:
    """The running runs whose owner is not in ``live_workers`` (a blocking call).

    Returns:
        ``(run_id, conversation_id, trigger, run owner (worker), conversation owner (user))``.
    """
    with engine.db.session() as session:
        return [
            (run.id, run.conversation_id, run.trigger, run.owner_id, owner)
            for run, owner in session.exec(_RUNNING_RUNS).all()
            if run.owner_id not in live_workers
        ]


def repair_run(
    engine: Engine,
    run_id: str,
    conversation_id: str,
    owner: str | None,
    cutoff: datetime | None = None,
) -> bool:
    """End a stale run ``server_restarted`` and close its caught calls, in one transaction.

    The run's row is taken first (:mod:`interlock.engine.fence`: the old worker's steps then
    write nothing more; on PostgreSQL ``NOTIFY interlock_control 'abandon <run>'`` also stops
    its task at once, if that worker still lives), and only while the run still runs under ``owner`` whose heartbeat
    is older than ``cutoff`` (when given). A blocking call.

    Returns:
        True when repaired; False when the run ended meanwhile or its owner beat again.
    """
    take = (
        update(_runs)
        .where(
            _runs.c.id == run_id,
            _runs.c.status == str(RunStatus.running),
            _runs.c.owner_id.is_not_distinct_from(owner),
        )
        .values(owner_id=_runs.c.owner_id)
    )
    if cutoff is not None:
        alive = select(_workers.c.id).where(
            _workers.c.id == _runs.c.owner_id, _workers.c.heartbeat_at >= cutoff
        )
        take = take.where(~alive.exists())
    with engine.db.session() as session:
        if session.connection().execute(take).rowcount != 1:
            session.rollback()
            return False
        keep_cut_reply(session, engine, run_id, conversation_id)
        for call in session.exec(
            select(ToolCall).where(
                ToolCall.conversation_id == conversation_id,
                col(ToolCall.status).in_([ToolCallStatus.running, ToolCallStatus.pending]),
            )
        ).all():
            started = call.status == ToolCallStatus.running
            code = "outcome_unknown" if started else "internal"
            reason = RESTART_REASON if started else NOT_STARTED_REASON
            close_call(
                session,
                engine.bus,
                engine.registry,
                call,
                status=ToolCallStatus.failed,
                text=error_text(code, reason, STOPPED_HINT if started else None),
                error_code=code,
                error_message=reason,
                run_id=run_id,
            )
        error = InterlockError(SERVER_STOPPED_RUN, code=SERVER_RESTARTED)
        ended = stage_end(
            session,
            engine.bus,
            engine.registry,
            run_id,
            conversation_id,
            RunStatus.failed,
            error=error,
            keep_interrupted=True,
        )
        assert ended, "the run's row is held in this transaction"
        if not engine.db.is_sqlite:  # the old worker, if it still lives, stops the run's task
            session.exec(select(func.pg_notify(CONTROL_CHANNEL, f"abandon {run_id}")))  # type: ignore[call-overload]
        engine.bus.commit(session)
    return True


def keep_cut_reply(session: Session, engine: Engine, run_id: str, conversation_id: str) -> None:
    """Store the reply the stale run was streaming as its assistant message, with its
    ``message.completed`` event, in the repair's transaction (``session``, the run's row held).

    A process killed outright (SIGKILL, a crash) stored nothing of the reply it was writing,
    only its ``message.delta`` events: the person's page lost the text, and nothing said the
    reply was cut. Kept as a process stopping mid-answer keeps it, the reply is shown cut off
    (``restarted_runs``) and the run going on answers the message again
    (:func:`~interlock.engine.history.without_cut_reply`).
    """
    text = draft_of_run(session, conversation_id, run_id)
    if not text.strip():
        return
    message = insert_reply(session, conversation_id, run_id, text)
    engine.bus.stage(
        session, conversation_id, MessageCompleted(run_id=run_id, message=message_out(message))
    )


def claim_takeover(engine: Engine, conversation_id: str) -> str | None:
    """Start a run going on with a repaired conversation (a blocking call).

    Nothing starts while a call of the conversation still waits for a decision (that is a
    pause: the decision resumes it) or another run holds the conversation.

    Returns:
        The new run's id (``run.started`` stored, trigger ``resume`` on the wire), or None.
    """
    with engine.db.session() as session:
        waiting = session.exec(
            select(ToolCall.id)
            .outerjoin(Decision, col(Decision.tool_call_id) == col(ToolCall.id))
            .where(ToolCall.conversation_id == conversation_id, waiting_for_person())
        ).first()
        if waiting is not None:
            return None
        run = Run(conversation_id=conversation_id, trigger=TAKEOVER, owner_id=engine.worker_id)
        claimed = session.exec(  # type: ignore[call-overload]
            update(Conversation)
            .where(
                col(Conversation.id) == conversation_id, col(Conversation.active_run_id).is_(None)
            )
            .values(active_run_id=run.id)
        ).rowcount
        if claimed != 1:
            return None
        session.add(run)
        engine.bus.stage(session, conversation_id, RunStarted(run_id=run.id, trigger="resume"))
        engine.bus.commit(session)
    return run.id
