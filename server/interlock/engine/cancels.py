"""A person's cancel: the active run (driven here or by another server process) or a pause.

The run is cancelled where its task runs: here with ``task.cancel()``; on another live worker
through ``engine.leases`` (a cancel request the owner sees at once by ``NOTIFY`` or at its next
heartbeat), waiting for the run to end. Whatever happened, the run is then ended here unless
it already was (a task cancelled before its first step, or lost with its worker).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from interlock.engine.records import cancel_open_calls, latest_assistant_calls
from interlock.storage import RunStatus

if TYPE_CHECKING:
    from interlock.engine.runner import Engine

CANCEL_WAIT_S = 10.0
CANCEL_REASON = "cancelled by the person"


async def cancel_run(engine: Engine, user_id: str, conversation_id: str) -> str | None:
    """Cancel the active run, or close the calls a paused run waits on.

    Returns:
        The id of the run cancelled, or None when there was nothing to cancel.

    Raises:
        NotFound: Not the caller's conversation.
    """
    active = await engine.db.run(_active_run, engine, user_id, conversation_id)
    if active is None:
        return await engine.db.run(_cancel_pause, engine, user_id, conversation_id)
    task = engine.task_of(active)
    if task is not None:
        task.cancel()
        await asyncio.wait({task}, timeout=CANCEL_WAIT_S)
    elif await engine.db.run(engine.leases.request_cancel, active):
        await engine.leases.wait_ended(conversation_id, active, CANCEL_WAIT_S)
    else:  # claimed here, its task not started yet: it must not start after this
        engine.forbid_start(active)
    await engine.db.run(
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
            CANCEL_REASON,
            decider=user_id,
        )
        engine.bus.commit(session)
    return calls[0].run_id if closed and calls else None
