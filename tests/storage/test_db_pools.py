"""The database threads: a person's request never queues behind the steps of busy runs.

Runs' database calls (made in a task with ``run_work`` set, as ``engine.driving`` does) go to
threads of their own. With every one of those threads stuck and more run calls queued, a
request's call still runs at once.
"""

from __future__ import annotations

import asyncio
import threading

from interlock.storage import Database
from interlock.storage.db import RUN_THREADS, run_work

GUARD_S = 30.0


async def test_a_request_runs_while_every_run_thread_is_stuck(database: Database) -> None:
    gate = threading.Event()
    started = threading.Semaphore(0)

    def stuck_step() -> None:
        started.release()
        gate.wait(GUARD_S)

    async def run_step() -> None:
        run_work.set(True)  # this task's calls are a run's
        await database.run(stuck_step)

    steps = [asyncio.create_task(run_step()) for _ in range(RUN_THREADS + 4)]
    try:
        async with asyncio.timeout(GUARD_S):
            for _ in range(RUN_THREADS):  # every run thread is busy now
                await asyncio.to_thread(started.acquire)
            assert await database.run(lambda: "answered") == "answered"
        assert not gate.is_set() and not any(step.done() for step in steps)
    finally:
        gate.set()
        await asyncio.gather(*steps)
