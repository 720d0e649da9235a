"""Database work of one fresh HITL cycle: transactions, statements and sessions, by kind.

    python bench/cycle_counts.py [--cycles 5] [--database-url URL] [--show-statements]
                                 [--trace CALLER]

Serves Interlock in this process (SQLite in a temporary directory unless ``--database-url``),
runs a few warm-up cycles, then counts over ``--cycles`` fresh cycles (new conversation, its
stream, "add a note", approve, run completed) with SQLAlchemy event hooks on the server's
engine: commits, statements (by first word) and ``Database.session`` calls (by caller).
On PostgreSQL also the round trips: each ``BEGIN`` sent alone (none since
:mod:`interlock.storage.pg_begin`), each statement sent on its own, each batch of
:mod:`interlock.storage.write_behind` (queued writes, ``send``, ``COMMIT``) and of the audit
chain's append, each ``COMMIT`` or ``ROLLBACK`` sent alone (a read-only
transaction's ``COMMIT`` too) and each ``NOTIFY``, also by the caller of the session they were
made in (background sweeps that ran meanwhile show as theirs, or as ``(no session)``), and
with ``--trace CALLER`` one by one, in order, for the sessions whose caller contains CALLER
(``--trace decisions``: what each of a decision's round trips carried).
Figures are per cycle. Not part of ``make bench``: a tool for reading where the work goes.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import threading
from collections import Counter
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event

from client import hitl_cycle
from common import run_async
from load_client import LoadClient
from server import bench_settings, inprocess_server, prepare_database

WARMUP = 3


class Counts:
    """Counters filled by the engine's event hooks."""

    def __init__(self) -> None:
        self.on = False
        self.commits = 0
        self.rollbacks = 0
        self.statements: Counter[str] = Counter()
        self.texts: Counter[str] = Counter()
        self.sessions: Counter[str] = Counter()
        self.trips: Counter[str] = Counter()
        """PostgreSQL round trips, by kind."""
        self.trips_by_session: Counter[str] = Counter()
        """PostgreSQL round trips, by the caller of the session they were made in."""
        self.current = threading.local()
        """``label``: the caller of the thread's open session (None outside one)."""

        self.trace: list[tuple[str, str, str]] = []
        """Every round trip counted: ``(session's caller, kind, what went out)``."""

    def trip(self, kind: str, what: str = "") -> None:
        """Count one PostgreSQL round trip of ``kind`` (``what``: a statement's text)."""
        label = getattr(self.current, "label", None) or "(no session)"
        self.trips[kind] += 1
        self.trips_by_session[label] += 1
        self.trace.append((label, kind, what))


def instrument(services: Any, counts: Counts) -> None:
    engine = services.db.engine

    @event.listens_for(engine, "before_cursor_execute")
    def _statement(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if counts.on:
            words = statement.split()
            counts.statements[words[0].upper() if words else "?"] += 1
            counts.texts[" ".join(words)[:160]] += 1

    @event.listens_for(engine, "commit")
    def _commit(_conn: Any) -> None:
        if counts.on:
            counts.commits += 1

    if engine.dialect.name == "postgresql":
        count_round_trips(services, counts)

    @event.listens_for(engine, "rollback")
    def _rollback(_conn: Any) -> None:
        if counts.on:
            counts.rollbacks += 1

    db = services.db
    original = db.session

    def session() -> Any:
        caller = sys._getframe(1)
        module = str(caller.f_globals.get("__name__", "?")).removeprefix("interlock.")
        label = f"{module}.{caller.f_code.co_name}"
        if counts.on:
            counts.sessions[label] += 1
        return labelled(label)

    @contextmanager
    def labelled(label: str) -> Any:
        outer = getattr(counts.current, "label", None)
        counts.current.label = label
        try:
            with original() as opened:
                yield opened
        finally:
            counts.current.label = outer

    db.session = session


def count_round_trips(services: Any, counts: Counts) -> None:
    """Count PostgreSQL round trips (see the module's docstring) into ``counts.trips``."""
    import psycopg
    from psycopg.pq import TransactionStatus

    from interlock.audit import chain
    from interlock.storage import write_behind

    engine = services.db.engine
    capture = getattr(write_behind, "_CAPTURE", None)
    try:  # since then a BEGIN goes out with the transaction's first write
        from interlock.storage import pg_begin  # noqa: F401

        begin_alone = False
    except ImportError:  # psycopg sends BEGIN alone before a transaction's first statement
        begin_alone = True

    def count_begin(conn: Any) -> None:
        driver = conn.connection.driver_connection
        if begin_alone and driver.info.transaction_status == TransactionStatus.IDLE:
            counts.trip("BEGIN")

    @event.listens_for(engine, "before_cursor_execute")
    def _statement(conn: Any, cursor: Any, statement: str, *_args: Any) -> None:
        # A statement queued (storage.write_behind) goes out with a batch, counted below.
        if counts.on and cursor is not None and (capture is None or capture not in conn.info):
            count_begin(conn)
            queued = len(conn.info.get(getattr(write_behind, "_QUEUE", ""), ()))
            counts.trip("statement", f"{queued} queued + {' '.join(statement.split())[:90]}")

    def counted_end(end: Any, kind: str) -> Any:
        """``psycopg.Connection.commit`` or ``rollback``, counted when it sends something."""

        def counted(driver: Any) -> None:
            if counts.on and driver.info.transaction_status != TransactionStatus.IDLE:
                counts.trip(kind)
            end(driver)

        return counted

    # At the driver: what SQLAlchemy ends, and the COMMIT ending a read-only transaction
    # (pg_pool); one a batch ended already finds no transaction open and sends nothing.
    connection_class: Any = psycopg.Connection
    connection_class.commit = counted_end(connection_class.commit, "COMMIT")
    connection_class.rollback = counted_end(connection_class.rollback, "ROLLBACK")

    run = write_behind._run

    def counted_run(connection: Any, queue: list[Any], **kwargs: Any) -> Any:
        if counts.on:
            count_begin(connection)
            carries_commit = bool(queue) and queue[-1][0] == "COMMIT"
            counts.trip(
                "batch with COMMIT" if carries_commit else "batch",
                " | ".join(" ".join(str(entry[0]).split())[:40] for entry in queue),
            )
        return run(connection, queue, **kwargs)

    write_behind._run = counted_run  # type: ignore[assignment]
    append = chain.append_in_database

    def counted_append(session: Any, pending: Any, *, commit: bool) -> None:
        if counts.on:
            count_begin(session.connection())
            queued = len(session.connection().info.get(getattr(write_behind, "_QUEUE", ""), ()))
            counts.trip(
                "audit batch with COMMIT" if commit else "audit batch",
                f"{queued} queued + lock + {len(pending)} records",
            )
        append(session, pending, commit=commit)

    chain.append_in_database = counted_append  # type: ignore[assignment]
    notifier = services.db.notifier
    if notifier is not None:
        send = notifier.send

        def counted_send(channel: str, payloads: list[str]) -> bool:
            if counts.on and payloads:
                counts.trip("NOTIFY")
            return bool(send(channel, payloads))

        notifier.send = counted_send  # type: ignore[method-assign]


async def measure(database_url: str | None, cycles: int) -> Counts:
    with tempfile.TemporaryDirectory(prefix="interlock-counts-") as tmp:
        if database_url is None:
            _path, database_url = prepare_database(Path(tmp))
        settings = bench_settings(database_url)
        counts = Counts()
        async with inprocess_server(settings) as server:
            instrument(server.services, counts)
            client = LoadClient(server.url)
            try:
                for i in range(WARMUP + cycles):
                    if i == WARMUP:
                        counts.on = True
                    conversation_id = await client.new_conversation()
                    async with client.events(conversation_id) as stream:
                        await hitl_cycle(client, stream, conversation_id, i)
                    await server.services.engine.wait_idle()
                counts.on = False
            finally:
                await client.aclose()
        return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=5)
    parser.add_argument(
        "--database-url", default=None, help="a migrated database (default: SQLite)"
    )
    parser.add_argument("--show-statements", action="store_true")
    parser.add_argument(
        "--trace",
        default=None,
        metavar="CALLER",
        help="PostgreSQL: list the round trips of sessions whose caller contains CALLER",
    )
    args = parser.parse_args()
    counts = run_async(measure(args.database_url, args.cycles))
    n = args.cycles
    total = sum(counts.statements.values())
    print(f"per fresh HITL cycle (mean of {n}):")
    print(
        f"  transactions (commits): {counts.commits / n:.1f}   rollbacks: {counts.rollbacks / n:.1f}"
    )
    print(
        f"  statements: {total / n:.1f}  "
        + "  ".join(f"{k} {v / n:.1f}" for k, v in counts.statements.most_common())
    )
    if counts.trips:
        print(
            f"  PostgreSQL round trips: {sum(counts.trips.values()) / n:.1f}  "
            + "  ".join(f"{k} {v / n:.1f}" for k, v in counts.trips.most_common())
        )
    if counts.trips_by_session:
        print("  PostgreSQL round trips by session (its caller):")
        for name, value in counts.trips_by_session.most_common():
            print(f"    {value / n:5.1f}  {name}")
    print(f"  sessions: {sum(counts.sessions.values()) / n:.1f}")
    for name, value in counts.sessions.most_common():
        print(f"    {value / n:5.1f}  {name}")
    if args.trace is not None:
        print(f"  round trips of sessions of {args.trace!r} (all {n} cycles), in order:")
        for label, kind, what in counts.trace:
            if args.trace in label:
                print(f"    {label}: {kind}: {what}")
    if args.show_statements:
        for text, value in counts.texts.most_common():
            print(f"    {value / n:5.1f}  {text}")


if __name__ == "__main__":
    main()
