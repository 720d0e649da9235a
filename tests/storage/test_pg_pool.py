"""The PostgreSQL connection pool: connections idle a while are checked before use, others not.

* A pooled connection the server closed while it sat idle (a restart, an idle timeout) is
  replaced before a session gets it: the session works.
* A connection returned moments ago is handed out without a check (no round trip).
* The pool keeps two connections per database thread and never holds more than its cap.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from interlock.storage import Database, pg_pool
from interlock.storage.db import DB_THREADS


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def pg_database(postgres_server: object, monkeypatch: pytest.MonkeyPatch) -> Iterator[Database]:
    """A Database on a new, empty PostgreSQL database; its pool's clock is a fake one."""
    url = postgres_server.create_database()  # type: ignore[attr-defined]
    monkeypatch.setattr(pg_pool, "monotonic", Clock())
    database = Database(url)
    try:
        yield database
    finally:
        database.dispose()
        postgres_server.drop_database(url)  # type: ignore[attr-defined]


def _backend_pid(database: Database) -> int:
    with database.session() as session:
        return int(session.execute(text("SELECT pg_backend_pid()")).scalar_one())


def _terminate(database: Database, pid: int) -> None:
    admin = create_engine(make_url(str(database.url)), poolclass=NullPool)
    try:
        with admin.connect() as connection:
            assert connection.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
    finally:
        admin.dispose()


@pytest.mark.postgres
def test_a_connection_closed_while_idle_is_replaced_before_use(
    pg_database: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    pings: list[object] = []
    dialect = pg_database.engine.dialect
    real_ping = dialect.do_ping

    def counting_ping(dbapi_connection: object) -> bool:
        pings.append(dbapi_connection)
        return real_ping(dbapi_connection)

    monkeypatch.setattr(dialect, "do_ping", counting_ping)
    first = _backend_pid(pg_database)
    assert _backend_pid(pg_database) == first  # reused at once, unchecked
    assert pings == []

    _terminate(pg_database, first)
    pg_pool.monotonic.now += pg_pool.PING_AFTER_IDLE_S + 0.5  # type: ignore[attr-defined]
    second = _backend_pid(pg_database)
    assert second != first
    assert len(pings) == 1  # the dead one was checked and replaced; the new one is not checked


def test_the_pool_keeps_two_connections_per_thread_within_the_cap() -> None:
    options = pg_pool.pool_options(DB_THREADS)
    assert options["pool_size"] == 2 * DB_THREADS
    assert options["pool_size"] + options["max_overflow"] == pg_pool.MAX_CONNECTIONS
    many = pg_pool.pool_options(100)
    assert many["pool_size"] + many["max_overflow"] == pg_pool.MAX_CONNECTIONS
