"""Holding a database lock from outside the server, as another process would."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

GUARD_S = 30.0
"""The lock is released after this many seconds whatever happens (a failing test)."""


@contextmanager
def write_lock(db_url: str) -> Iterator[None]:
    """Hold a lock that makes every write to ``conversations`` wait (reads pass)."""
    url = make_url(db_url)
    if url.get_backend_name() == "sqlite":
        connection = sqlite3.connect(url.database or "", isolation_level=None, timeout=10.0)
        lock = threading.Lock()

        def release() -> None:
            with lock:
                if connection.in_transaction:
                    connection.execute("ROLLBACK")

        connection.execute("BEGIN IMMEDIATE")
        guard = threading.Timer(GUARD_S, release)
        guard.start()
        try:
            yield
        finally:
            guard.cancel()
            release()
            connection.close()
        return
    with held_on_postgres(db_url, "LOCK TABLE conversations IN EXCLUSIVE MODE"):
        yield


@contextmanager
def advisory_lock(db_url: str, key: int) -> Iterator[None]:
    """Hold PostgreSQL's transaction-scoped advisory lock ``key`` (as a stuck writer would)."""
    with held_on_postgres(db_url, "SELECT pg_advisory_xact_lock(:key)", key=key):
        yield


@contextmanager
def held_on_postgres(db_url: str, statement: str, **params: object) -> Iterator[None]:
    """Run ``statement`` (which takes a lock) in a transaction of another connection, and keep
    that transaction open until the block ends (or :data:`GUARD_S` passes).

    Raises:
        sqlalchemy.exc.OperationalError: The lock was not had within 10 s.
    """
    url = make_url(db_url)
    if url.drivername in ("postgresql", "postgres"):
        url = url.set(drivername="postgresql+psycopg")
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            connection.execute(text("SET lock_timeout = '10s'"))
            connection.execute(text(f"SET idle_in_transaction_session_timeout = '{GUARD_S}s'"))
            connection.execute(text(statement), params)
            try:
                yield
            finally:
                connection.rollback()
    finally:
        engine.dispose()
