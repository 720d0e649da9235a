"""PostgreSQL: a request thread sends without polling its socket for room; runs' threads poll.

Every poll releases the GIL, and under load the thread then waits to get it back
(``storage/pg_wait.py``). Counted by wrapping psycopg's wait function (the polls it makes):

* a pipeline of five statements (one round trip) on a request thread polls only for its
  results, a few times at most, where psycopg alone polls about twice per statement (as it
  still does on a runs' thread);
* a statement larger than the socket's buffers (8 MB), which cannot be sent at once, still
  goes through on a request thread: once its unpolled tries are spent the connection polls
  for room (counted), and the statement's answer is right.
"""

from __future__ import annotations

import asyncio
import os
import socket
from collections.abc import Iterator

import pytest
from psycopg.waiting import Wait
from sqlalchemy import text

from interlock.storage import Database
from interlock.storage.db import run_work
from interlock.storage.pg_wait import WriteFirstConnection
from support.polls import count_polls

STATEMENTS = 5


@pytest.fixture
def pg_database(postgres_server: object) -> Iterator[Database]:
    """A Database on a new, empty PostgreSQL database."""
    url = postgres_server.create_database()  # type: ignore[attr-defined]
    database = Database(url)
    try:
        yield database
    finally:
        database.dispose()
        postgres_server.drop_database(url)  # type: ignore[attr-defined]


@pytest.fixture
def polls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The socket polls psycopg's wait function makes from now on (one list item each)."""
    return count_polls(monkeypatch)


def _pipeline(database: Database) -> list[int]:
    """Five statements in one pipeline (one round trip), in a transaction; their results."""
    with database.engine.connect() as connection:
        driver = connection.connection.driver_connection
        assert isinstance(driver, WriteFirstConnection)
        with driver.pipeline():
            cursors = [driver.cursor() for _ in range(STATEMENTS)]
            for n, cursor in enumerate(cursors):
                cursor.execute("SELECT %s::int", (n,))
        values = [int(cursor.fetchone()[0]) for cursor in cursors]  # type: ignore[index]
        connection.rollback()
    return values


async def _on_run_thread(database: Database) -> list[int]:
    run_work.set(True)  # this task's calls go to the runs' threads
    return await database.run(_pipeline, database)


def test_pg_wait_a_request_thread_polls_for_results_only(
    pg_database: Database, polls: list[int]
) -> None:
    async def main() -> tuple[list[int], int, list[int], int]:
        await pg_database.run(_pipeline, pg_database)  # connections opened, warm
        await asyncio.create_task(_on_run_thread(pg_database))
        polls.clear()
        on_request = await pg_database.run(_pipeline, pg_database)
        request_polls = len(polls)
        polls.clear()
        on_run = await asyncio.create_task(_on_run_thread(pg_database))
        return on_request, request_polls, on_run, len(polls)

    on_request, request_polls, on_run, run_polls = asyncio.run(main())
    assert on_request == on_run == list(range(STATEMENTS))
    assert 1 <= request_polls <= 3, request_polls
    assert run_polls >= 2 * STATEMENTS, run_polls


def test_pg_wait_a_statement_larger_than_the_socket_goes_through(
    pg_database: Database, polls: list[int]
) -> None:
    big = "x" * (8 * 1024 * 1024)

    def echo() -> int:
        with pg_database.engine.connect() as connection:
            # The smallest send buffer the kernel allows: no run of unpolled tries can send
            # 8 MB, however fast the server drains it (with Linux's megabytes of default
            # buffer, a few tries sometimes did, and nothing was polled).
            driver = connection.connection.driver_connection
            assert isinstance(driver, WriteFirstConnection)
            with socket.socket(fileno=os.dup(driver.fileno())) as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            return int(connection.execute(text("SELECT length(:s)"), {"s": big}).scalar_one())

    assert asyncio.run(pg_database.run(echo)) == len(big)
    assert int(Wait.RW) in polls  # the socket had no room: waited on, not spun on
