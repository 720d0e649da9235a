"""Runs' threads give way to requests' database calls (``storage/pg_priority.py``).

* no request's call running: a runs' thread goes on at once;
* one running: a runs' thread pauses until it ends, or until the pause's bound when it does
  not end (a runs' thread holding a lock a request waits for is never stuck behind it);
* psycopg's waits of a runs' thread are each followed by a give-way while a request's call
  runs, and its statements' answers are unchanged; a request thread's are not;
* :meth:`Database.run` counts a request's call while it runs (PostgreSQL), never a run's step,
  and nothing on SQLite.
"""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import text

from interlock.storage import Database, pg_priority
from interlock.storage.db import run_work
from interlock.storage.pg_priority import RequestsInFlight, giving_way, is_run_thread
from support.waits import wait_until

GUARD_S = 30.0


def _request_call(requests: RequestsInFlight, entered: threading.Event, release: threading.Event):
    def call() -> str:
        entered.set()
        release.wait(GUARD_S)
        return "answered"

    return lambda: requests.run(call)


def test_a_runs_thread_goes_on_at_once_when_no_request_call_runs() -> None:
    requests = RequestsInFlight()
    assert requests.give_way(GUARD_S) is True  # had it paused, the bound would end it: False
    assert requests.giving_way == 0


async def test_a_runs_thread_pauses_until_the_running_request_call_ends() -> None:
    requests, entered, release = RequestsInFlight(), threading.Event(), threading.Event()
    with ThreadPoolExecutor(2) as pool:
        answer = pool.submit(_request_call(requests, entered, release))
        assert await asyncio.to_thread(entered.wait, GUARD_S)
        assert requests.running == 1
        paused = pool.submit(requests.give_way, 10 * GUARD_S)
        await wait_until(lambda: requests.giving_way == 1, timeout_s=GUARD_S, what="a pause")
        assert not paused.done()
        release.set()
        assert paused.result(GUARD_S) is True  # ended by the call's end, not by its bound
        assert answer.result(GUARD_S) == "answered"
    assert (requests.running, requests.giving_way) == (0, 0)


async def test_a_runs_thread_pauses_no_longer_than_the_bound() -> None:
    requests, entered, release = RequestsInFlight(), threading.Event(), threading.Event()
    with ThreadPoolExecutor(1) as pool:
        answer = pool.submit(_request_call(requests, entered, release))
        try:
            assert await asyncio.to_thread(entered.wait, GUARD_S)
            assert requests.give_way(0.001) is False  # the call still runs: the bound ended it
            assert requests.running == 1
        finally:
            release.set()
        assert answer.result(GUARD_S) == "answered"


def test_a_request_call_that_fails_is_no_longer_counted() -> None:
    requests = RequestsInFlight()

    def fails() -> None:
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        requests.run(fails)
    assert requests.running == 0


def test_giving_way_follows_each_wait_while_a_request_call_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pauses: list[int] = []
    requests = RequestsInFlight()
    monkeypatch.setattr(pg_priority, "REQUESTS", requests)
    monkeypatch.setattr(pg_priority, "give_way", lambda: pauses.append(requests.running) or True)

    def waits() -> Any:
        first = yield "wait 1"
        second = yield "wait 2"
        return (first, second)

    gen = giving_way(waits())
    assert next(gen) == "wait 1"
    assert gen.send("ready 1") == "wait 2"  # no request's call running: no give-way
    requests.running = 1
    with pytest.raises(StopIteration) as done:
        gen.send("ready 2")
    assert done.value.value == ("ready 1", "ready 2")
    assert pauses == [1]


def test_database_on_sqlite_counts_no_request_call(tmp_path: Any) -> None:
    database = Database(f"sqlite:///{tmp_path / 'x.db'}")
    try:
        assert asyncio.run(database.run(lambda: pg_priority.REQUESTS.running)) == 0
    finally:
        database.dispose()


@pytest.mark.postgres
async def test_database_counts_a_request_call_while_it_runs_never_a_runs_step(
    pg_database: Database,
) -> None:
    def seen() -> tuple[int, bool]:
        return pg_priority.REQUESTS.running, is_run_thread()

    async def step() -> tuple[int, bool]:
        run_work.set(True)  # this task's calls are a run's
        return await pg_database.run(seen)

    assert await pg_database.run(seen) == (1, False)
    assert await asyncio.create_task(step()) == (0, True)
    assert pg_priority.REQUESTS.running == 0


@pytest.mark.postgres
async def test_a_runs_step_gives_way_after_its_waits_while_a_request_call_runs(
    pg_database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_give_way = pg_priority.give_way
    pauses: list[int] = []

    def counted() -> bool:
        pauses.append(pg_priority.REQUESTS.running)
        return real_give_way()

    monkeypatch.setattr(pg_priority, "give_way", counted)
    entered, release = threading.Event(), threading.Event()

    def request_call() -> str:
        entered.set()
        release.wait(GUARD_S)
        return "answered"

    def read() -> list[int]:
        with pg_database.engine.connect() as connection:
            return [
                int(v) for v in connection.execute(text("SELECT generate_series(1, 3)")).scalars()
            ]

    async def step() -> list[int]:
        run_work.set(True)
        return await pg_database.run(read)

    assert await asyncio.create_task(step()) == [1, 2, 3]
    assert pauses == []  # no request's call was running
    request = asyncio.create_task(pg_database.run(request_call))
    try:
        assert await asyncio.to_thread(entered.wait, GUARD_S)
        assert await asyncio.create_task(step()) == [1, 2, 3]
        assert pauses and set(pauses) == {1}
        pauses.clear()
        assert await pg_database.run(read) == [1, 2, 3]  # a request thread: no give-way
        assert pauses == []
    finally:
        release.set()
    assert await request == "answered"
