"""PostgreSQL round trips counted while chosen functions run, as ``bench/cycle_counts.py``
counts them.

Under load every round trip costs the calling thread a wait for the GIL, so a step's latency
follows its round trips (README, Benchmark). Counted on the thread running a watched function,
while it runs: each statement sent on its own, each batch of ``storage.write_behind`` (queued
statements, ``send``, the ``COMMIT``), each audit batch, each ``COMMIT`` or ``ROLLBACK`` sent
alone and each ``NOTIFY`` sent after it.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event

from interlock.audit import chain
from interlock.storage import write_behind


@contextmanager
def round_trips_of(
    monkeypatch: pytest.MonkeyPatch, services: Any, watched: dict[str, tuple[Any, str]]
) -> Iterator[dict[str, list[list[str]]]]:
    """Count the round trips of each call of the watched functions.

    Args:
        monkeypatch: The test's monkeypatch (the wrappers are undone with it).
        services: The live server's services (its engine and notifier).
        watched: ``{label: (owner, attribute name)}``: the functions to watch (a module's
            function or a class's method, called on a database thread).

    Yields:
        ``{label: [the round trips of one call, in order], ...}``, one list per call, filled
        while the block runs.
    """
    import psycopg

    trips: dict[str, list[list[str]]] = {label: [] for label in watched}
    local = threading.local()

    def current() -> list[str] | None:
        return getattr(local, "trips", None)

    def wrapped(label: str, real: Any) -> Any:
        @functools.wraps(real)
        def call(*args: Any, **kwargs: Any) -> Any:
            if current() is not None:  # nested in another watched call: counted there
                return real(*args, **kwargs)
            local.trips = []
            trips[label].append(local.trips)
            try:
                return real(*args, **kwargs)
            finally:
                local.trips = None

        return call

    def add(kind: str) -> None:
        counted = current()
        if counted is not None:
            counted.append(kind)

    def statement(conn: Any, cursor: Any, text: str, *_args: Any) -> None:
        # A statement queued (told with no cursor) goes out with a batch.
        if cursor is not None:
            add(f"statement {text.split()[0]}")

    real_run = write_behind._run

    def run(connection: Any, queue: list[Any], **kwargs: Any) -> Any:
        add("batch")
        return real_run(connection, queue, **kwargs)

    real_append = chain.append_in_database

    def append(session: Any, pending: Any, *, commit: bool) -> None:
        add("audit batch")
        real_append(session, pending, commit=commit)

    def ended(end: Any, kind: str) -> Any:
        from psycopg.pq import TransactionStatus

        def counted(driver: Any) -> None:
            if driver.info.transaction_status != TransactionStatus.IDLE:
                add(kind)
            end(driver)

        return counted

    notifier = services.db.notifier
    real_send = notifier.send

    def send(channel: str, payloads: list[str]) -> bool:
        if payloads:
            add("NOTIFY")
        return bool(real_send(channel, payloads))

    for label, (owner, name) in watched.items():
        monkeypatch.setattr(owner, name, wrapped(label, getattr(owner, name)))
    monkeypatch.setattr(write_behind, "_run", run)
    monkeypatch.setattr(chain, "append_in_database", append)
    monkeypatch.setattr(psycopg.Connection, "commit", ended(psycopg.Connection.commit, "COMMIT"))
    monkeypatch.setattr(
        psycopg.Connection, "rollback", ended(psycopg.Connection.rollback, "ROLLBACK")
    )
    monkeypatch.setattr(notifier, "send", send)
    engine = services.db.engine
    event.listen(engine, "before_cursor_execute", statement)
    try:
        yield trips
    finally:
        event.remove(engine, "before_cursor_execute", statement)
