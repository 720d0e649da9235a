"""Work a database call defers to the event loop (``defer_to_caller``): it runs on the loop
thread once the call is over, before the caller goes on, whether the call returned, raised or
its caller was cancelled; outside a database call nothing is deferred."""

from __future__ import annotations

import asyncio
import threading

import pytest

from interlock.storage import Database
from interlock.storage.db_calls import defer_to_caller

GUARD_S = 30.0


async def test_deferred_work_runs_on_the_loop_after_the_call(database: Database) -> None:
    seen: list[tuple[str, int]] = []
    loop_thread = threading.get_ident()

    def call() -> str:
        assert defer_to_caller(lambda: seen.append(("deferred", threading.get_ident())))
        seen.append(("call", threading.get_ident()))
        return "done"

    assert await database.run(call) == "done"
    assert [what for what, _ in seen] == ["call", "deferred"]
    assert seen[0][1] != loop_thread and seen[1][1] == loop_thread


async def test_deferred_work_runs_when_the_call_raises(database: Database) -> None:
    seen: list[str] = []

    def call() -> None:
        defer_to_caller(lambda: seen.append("deferred"))
        raise LookupError("after its commit")

    with pytest.raises(LookupError, match="after its commit"):
        await database.run(call)
    assert seen == ["deferred"]


async def test_deferred_work_runs_when_the_caller_is_cancelled(database: Database) -> None:
    seen: list[str] = []
    entered, gate = threading.Event(), threading.Event()

    def call() -> None:
        entered.set()
        gate.wait(GUARD_S)
        defer_to_caller(lambda: seen.append("deferred"))

    task = asyncio.create_task(database.run(call))
    async with asyncio.timeout(GUARD_S):
        await asyncio.to_thread(entered.wait, GUARD_S)
        task.cancel()
        gate.set()
        with pytest.raises(asyncio.CancelledError):
            await task
    assert seen == ["deferred"]


def test_nothing_is_deferred_outside_a_database_call() -> None:
    assert defer_to_caller(lambda: None) is False
