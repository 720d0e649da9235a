"""Driving one run: the graph invocation and the run's end, whatever way it stops."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from interlock.engine.fence import RunTakenOver
from interlock.engine.graph import Start, Turn, TurnState
from interlock.errors import InterlockError
from interlock.storage import RunStatus
from interlock.storage.db import run_work

if TYPE_CHECKING:
    from interlock.engine.runner import Engine

log = logging.getLogger(__name__)


async def drive(
    engine: Engine, run_id: str, conversation_id: str, user_id: str, start: Start
) -> None:
    """Invoke the graph for ``run_id`` (claimed and committed), then end the run once.

    Cancelled by a person: ``run.cancelled``; an :class:`InterlockError` (step limit, loop
    guard, busy database): ``run.failed`` with its code, except :class:`RunTakenOver` (another
    worker ended the run and goes on: nothing is written here); any other exception (a model or
    provider failure): ``run.failed`` ``model_error``, logged. A step that already wrote the
    terminal event with its own work leaves nothing to do here.
    """
    run_work.set(True)  # this task's database calls go to the runs' threads
    state: TurnState = {"turn": Turn(run_id, conversation_id, user_id)}
    recursion_limit = 2 * engine.settings.max_steps_per_turn + 4
    db = engine.db
    try:
        final = await engine.graphs[start].ainvoke(
            state, config={"recursion_limit": recursion_limit}
        )
    except asyncio.CancelledError:
        if engine.left_to_others(run_id):
            return
        await db.run(
            engine.end_run,
            run_id,
            conversation_id,
            RunStatus.cancelled,
            reason="cancelled by the person",
        )
        return
    except RunTakenOver:
        # Another worker ended this run and goes on with the conversation: write nothing.
        log.warning("run %s was taken over by another worker; stopped here", run_id)
        return
    except InterlockError as exc:
        await db.run(engine.end_run, run_id, conversation_id, RunStatus.failed, error=exc)
        return
    except Exception:  # a model or provider failure: report it, keep the server up
        log.exception("run %s failed", run_id)
        error = InterlockError(  # provider text may hold internals: logged above only
            "The AI model could not answer (its service failed or could not be reached); "
            "the server log has the details.",
            code="model_error",
        )
        await db.run(engine.end_run, run_id, conversation_id, RunStatus.failed, error=error)
        return
    turn: Turn = final["turn"]
    if turn.ended:  # the last step wrote the terminal event with its own work
        return
    status = RunStatus.paused if turn.outcome == "paused" else RunStatus.completed
    await db.run(engine.end_run, run_id, conversation_id, status)
    if status == RunStatus.paused and not engine.left_to_others(run_id):
        # A decision or an expiry may have landed after the tools node looked and before
        # the pause was written (its own resume found this run active): go on now.
        await db.run(engine.resume_latest, conversation_id, user_id)
