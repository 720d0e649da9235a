"""A person's cancel: the active run (driven here or by another server process) or a pause.

The run is cancelled where its task runs: here with ``task.cancel()``; on another live worker
by a cancel request (``runs.cancel_requested``, sent as a ``NOTIFY`` too) that the owner sees
at once or at its next heartbeat (:mod:`~interlock.engine.leases`), waiting for the run to
end. Whatever happened, the run is then ended here unless it already was (a task cancelled
before its first step, or lost with its worker).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from sqlalchemy import func, select

from interlock.engine.open_calls import cancel_open_calls
from interlock.engine.records import latest_assistant_calls
from interlock.engine.tool_texts import CloseReason
from interlock.engine.workers import dead_before
from interlock.storage import Database, Run, RunStatus, Worker
from interlock.storage.models import as_utc
from interlock.streaming.listener import CONTROL_CHANNEL

if TYPE_CHECKING:
    from interlock.engine.runner import Engine

CANCEL_WAIT_S = 10.0
CANCEL_REASON = "cancelled by the person"
"""The ``run.cancelled`` event's reason."""
CANCELLED_PAUSE = CloseReason(
    model="cancelled by the person", owner="you cancelled the run", record="the run was cancelled"
)
"""Why the calls a paused run waits on closed at a cancel."""


async def cancel_run(engine: Engine, user_id: str, conversation_id: str) -> str | None:
    """Cancel the active run, or close the calls a paused run waits on.

    Returns:
        The id of the run cancelled, or None when there was nothing to cancel.

    Raises:
        NotFound: Not the caller's conversation.
    """
    active = await engine.db.run(_active_run, engine, user_id, conversation_id)
    if active is None:
        return await engine.db.run_transaction(_cancel_pause, engine, user_id, conversation_id)
    task = engine.task_of(active)
    if task is not None:
        task.cancel()
        await asyncio.wait({task}, timeout=CANCEL_WAIT_S)
    elif await engine.db.run(_request_cancel, engine, active):
        await _wait_ended(engine, conversation_id, active, CANCEL_WAIT_S)
    else:  # claimed here, its task not started yet: it must not start after this
        engine.forbid_start(active)
    await engine.db.run_transaction(
        engine.end_run,
        active,
        conversation_id,
        RunStatus.cancelled,
        reason=CANCEL_REASON,
        decider=user_id,
    )
    return active


def _active_run(engine: Engine, user_id: str, conversation_id: str) -> str | None:
    with engine.db.session() as session:
        return engine.owned_conversation(session, user_id, conversation_id).active_run_id


def _cancel_pause(engine: Engine, user_id: str, conversation_id: str) -> str | None:
    with engine.db.session() as session:
        calls = latest_assistant_calls(session, conversation_id)
        closed = cancel_open_calls(
            session,
            engine.bus,
            engine.registry,
            conversation_id,
            CANCELLED_PAUSE,
            decider=user_id,
        )
        engine.bus.commit(session)
    return calls[0].run_id if closed and calls else None


def _request_cancel(engine: Engine, run_id: str) -> bool:
    """Ask the live worker driving ``run_id`` to cancel it (a blocking call).

    Sets ``runs.cancel_requested`` and sends ``NOTIFY interlock_control 'cancel <run>'``
    in one transaction.

    Returns:
        True when another live worker owns the run (the caller waits for its end);
        False when no other live worker does (the caller ends it itself).
    """
    db, me = engine.db, engine.worker_id
    cutoff = dead_before(engine.leases.lease_s)
    with db.session() as session:
        run = session.get(Run, run_id)
        if run is None or run.status != RunStatus.running or run.owner_id in (None, me):
            return False
        owner = session.get(Worker, run.owner_id)
        if owner is None or as_utc(owner.heartbeat_at) < cutoff:
            return False
        run.cancel_requested = True
        session.add(run)
        if not db.is_sqlite:
            session.exec(select(func.pg_notify(CONTROL_CHANNEL, f"cancel {run_id}")))  # type: ignore[call-overload]
        session.commit()
    return True


def _is_running(db: Database, run_id: str) -> bool:
    """Whether ``run_id`` is still ``running`` (a blocking call)."""
    with db.session() as session:
        run = session.get(Run, run_id)
        return run is not None and run.status == RunStatus.running


async def _wait_ended(engine: Engine, conversation_id: str, run_id: str, timeout_s: float) -> None:
    """Wait until ``run_id`` is no longer running, at most ``timeout_s`` seconds.

    Woken by the conversation's events (any process's, through the listener).
    """
    subscription = engine.bus.subscribe(conversation_id)
    try:
        async with asyncio.timeout(timeout_s):
            while True:
                subscription.wakeup.clear()
                if not await engine.db.run(_is_running, engine.db, run_id):
                    break
                await subscription.wakeup.wait()
    except TimeoutError:
        pass
    finally:
        engine.bus.unsubscribe(subscription)
