"""PostgreSQL's own work per HITL cycle under (d)'s load: backends' CPU and statements.

    INTERLOCK_BENCH_POSTGRES_URL=postgresql://postgres@127.0.0.1:5544/postgres \\
        python bench/pg_statements.py [--workers 1] [--duration 15] [--active 50] [--idle 100]
                                      [--top 40]

Needs a PostgreSQL cluster started with ``shared_preload_libraries=pg_stat_statements`` and
``pg_stat_statements.track=all`` (a scratch one: not the service the tests use). Runs (d)'s
load (``load.run_load``) against ``--workers`` server processes on a fresh database of that
cluster; over the load's window it reads the CPU of the database's backends (user + system
from ``/proc``, :mod:`cpu_shares`) and ``pg_stat_statements`` (reset at the window's start),
and prints per cycle: the backends' CPU, and for each statement its calls, plans, execution
and planning time and rows. Statements whose text differs from call to call (a multi-row
``INSERT`` with another number of rows) show as several entries, each planned on every call.
Not part of ``make bench``: a tool for reading where PostgreSQL's CPU goes.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
from typing import Any

import psycopg

import load
from common import process_cpu_seconds, run_async
from cpu_shares import CpuMeter, postgres_pids
from server import POSTGRES_ADMIN_URL, ServerProcess, postgres_database

QUERY = """
SELECT query, calls, plans, total_exec_time, total_plan_time, rows,
       shared_blks_hit + shared_blks_read + local_blks_hit AS blocks
FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
WHERE d.datname = %s
"""

INDEXES = """
SELECT relname, indexrelname, idx_scan, idx_tup_read FROM pg_stat_user_indexes
ORDER BY relname, indexrelname
"""
TABLES = """
SELECT relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del, seq_scan, idx_scan
FROM pg_stat_user_tables WHERE n_tup_ins + n_tup_upd + n_tup_del > 0 ORDER BY relname
"""


COUNTERS = """
SELECT pg_current_wal_lsn() - '0/0', pg_current_wal_lsn()::text, w.wal_records, w.wal_fpi, w.wal_sync, d.xact_commit
FROM pg_stat_wal w, pg_stat_database d WHERE d.datname = %s
"""
COUNTER_NAMES = ("WAL bytes", "", "WAL records", "full pages", "WAL syncs", "commits")


class Window:
    """What was read at the load window's start and end."""

    def __init__(self) -> None:
        self.database = ""
        self.backends_start: dict[int, float] = {}
        self.backends_s = 0.0
        self.statements: list[tuple[Any, ...]] = []
        self.counters_start: tuple[Any, ...] = ()
        self.counters: list[float] = []
        """:data:`COUNTERS` over the window (the whole cluster's WAL; commits of the
        database)."""
        self.lsns = ("", "")
        """The WAL's position at the window's start and end (for ``pg_waldump``)."""
        self.indexes: list[tuple[Any, ...]] = []
        self.tables: list[tuple[Any, ...]] = []
        self.perf: list[str] | None = None
        """``perf record`` arguments to run over the window (None: no perf)."""
        self.perf_process: subprocess.Popen[bytes] | None = None


def instrumented_meter(window: Window) -> type[CpuMeter]:
    """A :class:`CpuMeter` that also resets and reads ``pg_stat_statements`` for ``window``."""

    def backends() -> dict[int, float]:
        only = postgres_pids(window.database)
        return {pid: process_cpu_seconds(pid) for pid in only if _is_backend(pid)}

    class Meter(CpuMeter):
        def start(self) -> None:
            with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as conn:
                conn.execute("SELECT pg_stat_statements_reset()")
                conn.execute("SELECT pg_stat_clear_snapshot()")
                window.counters_start = conn.execute(COUNTERS, (window.database,)).fetchone() or ()
            window.backends_start = backends()
            if window.perf is not None:
                window.perf_process = subprocess.Popen(
                    ["perf", "record", "-a", "-q", *window.perf],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            super().start()

        def stop(self) -> Any:
            shares = super().stop()
            end = backends()
            if window.perf_process is not None:
                window.perf_process.send_signal(signal.SIGINT)
                window.perf_process.wait()
            window.backends_s = sum(
                cpu - window.backends_start.get(pid, 0.0) for pid, cpu in end.items()
            )
            with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as conn:
                window.statements = conn.execute(QUERY, (window.database,)).fetchall()
                end_counters = conn.execute(COUNTERS, (window.database,)).fetchone() or ()
                window.counters = [
                    float(b - a) if not isinstance(a, str) else 0.0
                    for a, b in zip(window.counters_start, end_counters, strict=True)
                ]
                window.lsns = (str(window.counters_start[1]), str(end_counters[1]))
            base = POSTGRES_ADMIN_URL.rsplit("/", 1)[0]
            with psycopg.connect(f"{base}/{window.database}", autocommit=True) as conn:
                window.indexes = conn.execute(INDEXES).fetchall()
                window.tables = conn.execute(TABLES).fetchall()
            return shares

    return Meter


def _is_backend(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            title = f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return False
    return title.rsplit(": ", 1)[-1].strip() not in (
        "checkpointer",
        "background writer",
        "walwriter",
        "autovacuum launcher",
        "logical replication launcher",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--duration", type=float, default=15.0)
    parser.add_argument("--active", type=int, default=50)
    parser.add_argument("--idle", type=int, default=100)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--tables", action="store_true", help="also tables' and indexes' use")
    parser.add_argument(
        "--perf",
        default=None,
        help="also run 'perf record -a' with these arguments over the window, e.g. "
        "'-g -F 499 -o pg.data' (then: perf report -i pg.data --comms postgres)",
    )
    args = parser.parse_args()
    window = Window()
    window.perf = None if args.perf is None else args.perf.split()
    load.CpuMeter = instrumented_meter(window)  # type: ignore[misc]
    with postgres_database("interlock_pgstat") as url:
        window.database = url.rsplit("/", 1)[1]
        servers = [ServerProcess(url) for _ in range(args.workers)]
        try:
            handles = [s.start() for s in servers]
            stats = run_async(
                load.run_load(
                    f"pg{args.workers}",
                    [h.url for h in handles],
                    [h.pid for h in handles],
                    active=args.active,
                    idle=args.idle,
                    duration_s=args.duration,
                    cross=args.workers > 1,
                    database=window.database,
                )
            )
        finally:
            for server in servers:
                server.stop()
    # Decisions stored in the window: one per cycle, counted like the window's CPU (the
    # cycles counted by the load are those that ended in it: ±active at the edges).
    decided = sum(r[1] for r in window.statements if str(r[0]).startswith("INSERT INTO decisions"))
    n = decided or stats.cycles or 1
    load_avg = " ".join(f"{x:.2f}" for x in os.getloadavg())
    sh = stats.shares
    print(
        f"{args.workers} worker(s), {stats.cycles} cycles in {sh.seconds:.1f} s "
        f"({stats.per_s:.1f}/s; {decided} decisions stored in it: the figures below are per "
        f"decision), errors {len(stats.errors)}, load average {load_avg}"
    )
    print(
        f"  per cycle: servers {sh.servers_s / n * 1e3:.1f} ms CPU, PostgreSQL "
        f"{sh.postgres_s / n * 1e3:.2f} ms (backends {window.backends_s / n * 1e3:.2f} ms), "
        f"load generator {sh.generator_s / n * 1e3:.1f} ms"
    )
    print(
        "  per cycle: "
        + ", ".join(
            f"{name} {value / n:.1f}"
            for name, value in zip(COUNTER_NAMES, window.counters, strict=True)
            if name
        )
        + f" (WAL from {window.lsns[0]} to {window.lsns[1]}: pg_waldump --stats=record)"
    )
    if args.tables:
        print("  tables: inserted, updated (HOT), deleted, seq scans, index scans (whole run)")
        for name, ins, upd, hot, dele, seq, idx in window.tables:
            print(f"    {name:24} {ins:7} {upd:7} ({hot:6}) {dele:6} {seq:7} {idx}")
        print("  indexes: scans, tuples read (whole run)")
        for table, name, scans, read in window.indexes:
            print(f"    {table:24} {name:48} {scans:8} {read}")
    rows = sorted(window.statements, key=lambda r: -(r[3] + r[4]))
    calls = sum(r[1] for r in rows)
    plans = sum(r[2] for r in rows)
    exec_ms = sum(r[3] for r in rows)
    plan_ms = sum(r[4] for r in rows)
    print(
        f"  statements per cycle: {calls / n:.1f} calls, {plans / n:.1f} plans, "
        f"exec {exec_ms / n:.3f} ms, planning {plan_ms / n:.3f} ms, {len(rows)} distinct texts"
    )
    print("  calls/cyc plans/cyc exec_ms/cyc plan_ms/cyc rows/call blocks/call  query")
    for query, c, p, e, pl, r, b in rows[: args.top]:
        text = " ".join(str(query).split())
        print(
            f"  {c / n:8.2f} {p / n:8.2f} {e / n:10.4f} {pl / n:10.4f} {r / max(c, 1):8.1f} {b / max(c, 1):8.1f}  {text[:150]}"
        )


if __name__ == "__main__":
    main()
