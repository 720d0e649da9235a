"""``Database.run``: a cancelled caller still waits for its call's end on the database thread
(its transaction is never left half done behind the caller's back)."""

from __future__ import annotations

import asyncio
import threading

import pytest

from interlock.storage import Database

GUARD_S = 30.0


async def test_a_cancelled_caller_waits_for_its_call(database: Database) -> None:
    gate = threading.Event()
    started = threading.Event()
    finished = threading.Event()

    def slow() -> None:
        started.set()
        gate.wait(GUARD_S)
        finished.set()

    task = asyncio.create_task(database.run(slow))
    async with asyncio.timeout(GUARD_S):
        await asyncio.to_thread(started.wait, GUARD_S)
        task.cancel()
        await asyncio.to_thread(lambda: None)  # the loop turns: the cancel is delivered
        assert not task.done()  # the call still runs: the caller waits for it
        gate.set()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert finished.is_set()
