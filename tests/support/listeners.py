"""Hold the PostgreSQL listening connections of in-process servers down (bounded waits)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
import pytest
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.pool import NullPool

from interlock.streaming.listener import LISTENER_APPLICATION, EventListener
from support.live import LiveServer
from support.waits import wait_until

WAIT_S = 30.0


def listener_of(worker: LiveServer) -> EventListener:
    """The listener of a server started by :func:`support.live.live_server` on PostgreSQL."""
    assert worker.server is not None
    listener = worker.server.config.app.state.listener
    assert isinstance(listener, EventListener)
    return listener


@asynccontextmanager
async def listening_down(
    db_url: str, monkeypatch: pytest.MonkeyPatch, *workers: LiveServer
) -> AsyncIterator[None]:
    """Cut every listening connection of the database and keep ``workers`` from listening
    again until the block ends; then wait until they listen again.

    Whatever is sent on the channels inside the block never reaches these workers.
    """
    real_connect = psycopg.connect

    def refused(*args: Any, **kwargs: Any) -> Any:
        if kwargs.get("application_name") == LISTENER_APPLICATION:
            raise psycopg.OperationalError("listening held down by the test")
        return real_connect(*args, **kwargs)

    monkeypatch.setattr(psycopg, "connect", refused)
    url = make_url(db_url)
    admin = create_engine(url, poolclass=NullPool, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(
                text(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE application_name = :name AND datname = :db"
                ),
                {"name": LISTENER_APPLICATION, "db": url.database},
            )
    finally:
        admin.dispose()
    listeners = [listener_of(worker) for worker in workers]
    await wait_until(
        lambda: not any(listener.listening.is_set() for listener in listeners),
        timeout_s=WAIT_S,
        what="the listeners to notice the cut",
    )
    try:
        yield
    finally:
        monkeypatch.setattr(psycopg, "connect", real_connect)
    await wait_until(
        lambda: all(listener.listening.is_set() for listener in listeners),
        timeout_s=WAIT_S,
        what="the listeners to listen again",
    )
