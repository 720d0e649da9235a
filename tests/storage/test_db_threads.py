"""storage.threads: the database calls' threads run calls in order, survive a call that
raises, finish what was submitted before a shutdown and refuse calls after it; a cancelled
``Database.run`` caller still waits for its call's end."""

from __future__ import annotations

import asyncio
import threading

import pytest

from interlock.storage import Database
from interlock.storage.threads import Threads

GUARD_S = 30.0


def test_calls_run_in_order_and_shutdown_finishes_them() -> None:
    threads = Threads(1, "test-db")
    done: list[int] = []
    gate = threading.Event()
    threads.submit(lambda: gate.wait(GUARD_S))
    for i in range(5):
        threads.submit(lambda i=i: done.append(i))
    gate.set()
    threads.shutdown()  # waits for every call submitted before it
    assert done == [0, 1, 2, 3, 4]
    with pytest.raises(RuntimeError):
        threads.submit(lambda: None)


def test_a_call_that_raises_leaves_the_thread_running() -> None:
    threads = Threads(1, "test-db")
    ran = threading.Event()

    def broken() -> None:
        raise ValueError("broken")

    threads.submit(broken)
    threads.submit(ran.set)
    assert ran.wait(GUARD_S)
    threads.shutdown()


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
