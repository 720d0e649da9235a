"""The end of a run: its one terminal event, and the conversation released, in one transaction."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import update
from sqlmodel import col

from interlock.audit import SYSTEM_DECIDER
from interlock.engine.records import cancel_open_calls, latest_assistant_calls
from interlock.errors import InterlockError, error_body
from interlock.storage import Conversation, Run, RunStatus, ToolCallStatus
from interlock.storage.models import utcnow
from interlock.streaming.events import RunCancelled, RunCompleted, RunFailed, RunPaused

if TYPE_CHECKING:
    from interlock.engine.runner import Engine


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
        # Compare-and-set on the run row: of two enders racing on database threads (a cancel
        # and the run's own end, or two cancels) exactly one gets the row; the other's UPDATE
        # waits for that commit, then matches nothing.
        failed = status == RunStatus.failed and error is not None
        claimed = session.exec(  # type: ignore[call-overload]
            update(Run)
            .where(col(Run.id) == run_id, col(Run.status) == RunStatus.running)
            .values(
                status=status,
                finished_at=utcnow(),
                error_code=error.code if failed and error else None,
                error_message=error.message if failed and error else None,
            )
        ).rowcount
        if claimed != 1:
            session.rollback()
            return
        terminal: Any
        if status == RunStatus.paused:
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
                    engine.bus,
                    engine.registry,
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
        session.exec(  # type: ignore[call-overload]
            update(Conversation)
            .where(
                col(Conversation.id) == conversation_id,
                col(Conversation.active_run_id) == run_id,
            )
            .values(active_run_id=None, updated_at=utcnow())
        )
        engine.bus.stage(session, conversation_id, terminal)
        engine.bus.commit(session)
