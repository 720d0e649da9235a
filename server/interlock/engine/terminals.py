"""The end of a run: its one terminal event, and the conversation released, in one transaction."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import bindparam, update
from sqlmodel import Session

from interlock.audit import SYSTEM_DECIDER
from interlock.engine.open_calls import cancel_open_calls, lock_open_calls
from interlock.engine.records import latest_assistant_calls
from interlock.errors import InterlockError, error_body
from interlock.storage import Conversation, Run, RunStatus, ToolCallStatus
from interlock.storage.models import utcnow
from interlock.storage.statements import connection_of
from interlock.storage.write_behind import defer, send
from interlock.streaming import EventBus
from interlock.streaming.events import RunCancelled, RunCompleted, RunFailed, RunPaused
from interlock.tools import ToolRegistry

if TYPE_CHECKING:
    from interlock.engine.runner import Engine

# Prebuilt Core statements (every run ends through them; the ORM's bulk UPDATE costs several
# times more here). No ORM object of these rows is loaded in the sessions that run them.
_runs = Run.__table__  # type: ignore[attr-defined]
_conversations = Conversation.__table__  # type: ignore[attr-defined]
_END_RUN = (
    update(_runs)
    .where(_runs.c.id == bindparam("run_id"), _runs.c.status == str(RunStatus.running))
    .values(
        status=bindparam("new_status"),
        finished_at=bindparam("now"),
        error_code=bindparam("code"),
        error_message=bindparam("message"),
    )
)
_RELEASE = (
    update(_conversations)
    .where(
        _conversations.c.id == bindparam("conversation_id"),
        _conversations.c.active_run_id == bindparam("run_id"),
    )
    .values(active_run_id=None, updated_at=bindparam("now"))
)


def end_run(
    engine: Engine,
    run_id: str,
    conversation_id: str,
    status: RunStatus,
    *,
    error: InterlockError | None = None,
    reason: str = "",
    keep_interrupted: bool = False,
    decider: str = SYSTEM_DECIDER,
) -> None:
    """Write the run's one terminal event and release the conversation.

    A blocking call (database thread): async code runs it with ``db.run``. ``decider`` is
    who ended it (a user id for a person's cancel), for the audit records of the calls it
    closes.
    """
    with engine.db.session() as session:
        ended = stage_end(
            session,
            engine.bus,
            engine.registry,
            run_id,
            conversation_id,
            status,
            error=error,
            reason=reason,
            keep_interrupted=keep_interrupted,
            decider=decider,
        )
        if not ended:
            session.rollback()
            return
        engine.bus.commit(session)


def stage_end(
    session: Session,
    bus: EventBus,
    registry: ToolRegistry,
    run_id: str,
    conversation_id: str,
    status: RunStatus,
    *,
    error: InterlockError | None = None,
    reason: str = "",
    keep_interrupted: bool = False,
    decider: str = SYSTEM_DECIDER,
    pending: list[str] | None = None,
    run_held: bool = False,
) -> bool:
    """Stage the end of a run on ``session`` (see :func:`end_run`); the caller commits.

    ``pending``: the ids of the calls a paused run waits on, when the caller has them (else
    they are read). ``run_held``: the caller's transaction holds the running run's row
    (:func:`~interlock.engine.fence.hold_run`, its check passed): the run's end is sent with
    the ``COMMIT`` (the caller holds the conversation's sequence itself if it wants, with
    :meth:`~interlock.streaming.bus.EventBus.hold_soon`).

    Returns:
        False when the run was no longer running (another ender won): nothing was staged.
    """
    # Compare-and-set on the run row: of two enders racing on database threads (a cancel
    # and the run's own end, or two cancels) exactly one gets the row; the other's UPDATE
    # waits for that commit, then matches nothing.
    failed = status == RunStatus.failed and error is not None
    now = utcnow()
    params = {
        "run_id": run_id,
        "new_status": str(status),
        "now": now,
        "code": error.code if failed and error else None,
        "message": error.message if failed and error else None,
    }
    if run_held:
        # Held by this transaction while running (engine.fence): the compare-and-set cannot
        # miss, so it goes out with the COMMIT.
        defer(session, _END_RUN, params)
    else:
        # The conversation's event sequence is held in the same round trip (after the run's
        # row and the calls it closes, the order every writer takes them in: see
        # engine.open_calls.lock_open_calls): the terminal event is numbered without a trip of
        # its own, its bump sent with the COMMIT (EventBus.hold_seq).
        closing = status not in (RunStatus.paused, RunStatus.completed) and not keep_interrupted
        locks = [lock_open_calls(conversation_id)] if closing and not _is_sqlite(session) else []
        claimed, *_, held = send(session, (_END_RUN, params), *locks, bus.hold_seq(conversation_id))
        bus.held(session, conversation_id, held)
        if claimed.rowcount != 1:
            return False
    terminal: Any
    if status == RunStatus.paused:
        if pending is None:
            pending = [
                c.id
                for c in latest_assistant_calls(session, conversation_id)
                if c.status in (ToolCallStatus.interrupted, ToolCallStatus.awaiting_client)
            ]
        terminal = RunPaused(run_id=run_id, pending=pending)
    elif status == RunStatus.completed:
        terminal = RunCompleted(run_id=run_id)
    else:
        if not keep_interrupted:
            cancel_open_calls(
                session,
                bus,
                registry,
                conversation_id,
                "the run was cancelled" if status == RunStatus.cancelled else "the run failed",
                run_id,
                decider=decider,
            )
        if status == RunStatus.cancelled:
            terminal = RunCancelled(run_id=run_id, reason=reason)
        else:
            assert error is not None
            terminal = RunFailed(run_id=run_id, error=error_body(error)["error"])
    # Sent with the events (storage.write_behind): nothing reads its row count.
    defer(session, _RELEASE, {"conversation_id": conversation_id, "run_id": run_id, "now": now})
    bus.stage(session, conversation_id, terminal)
    return True


def _is_sqlite(session: Session) -> bool:
    return connection_of(session).dialect.name == "sqlite"
