"""What one turn of a long conversation costs at turn 10 and at turn N, in steady counts.

    python bench/turn_counts.py [--turns 200] [--at 10,200] [--database-url URL] [--top 25]
                                [--statements]

Drives one conversation (as part (b): "add a note t<i>" → run.paused → approve →
run.completed, one stream kept open) against Interlock served in this process, and counts,
for each turn named in ``--at`` (and the four turns before it, to take a median of five):

* Python function calls of every thread (cProfile per thread, server and client together, as
  (b)'s turn CPU counts both), and of them the calls of functions written in Python ("of
  Python"; the rest are calls of C functions such as ``isinstance`` or ``list.append``, each a
  small fraction of a Python function call's cost);
* SQL statements by kind, their parameters' bytes (``repr``), rows fetched (rows the DBAPI
  cursor returned to SQLAlchemy or to :mod:`interlock.storage.compiled`) and, on SQLite, the virtual machine's instructions (in
  hundreds, by statement: a statement whose scan grows shows here);
* garbage collections by generation, and the objects the collector tracks;
* the functions whose call count grew most between the first and the last ``--at`` turn.

These do not depend on the machine's load, unlike (b)'s times. Not part of ``make bench``.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import tempfile
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from sqlalchemy import event

from client import hitl_cycle
from common import median, run_async
from load_client import LoadClient
from server import bench_settings, inprocess_server, prepare_database

SAMPLES = 5
"""Turns counted at each point. Timers (lease heartbeats, sweeps) add their work to whichever
turn they fire in, more often when a loaded machine makes turns slow: the figures are medians,
and the lists of what grew compare the turns with the median call count."""


def _median_turn(runs: list[Any]) -> Any:
    """The sample whose total call count is the (lower) median of ``runs``."""
    return sorted(runs, key=lambda r: sum(r[0].values()))[(len(runs) - 1) // 2]


def gc_counts() -> list[int]:
    """Collections so far of generations 0, 1, 2 and the objects the collector tracks."""
    return [g["collections"] for g in gc.get_stats()] + [len(gc.get_objects())]


_PROFILES: list[cProfile.Profile] = []


def _start_thread_profile(*_args: Any) -> None:
    """Installed by ``threading.setprofile``: each new thread profiles itself with cProfile."""
    profile = cProfile.Profile()
    _PROFILES.append(profile)
    profile.enable()


def call_counts() -> Counter[str]:
    """Cumulative call counts by function over every profiled thread."""
    _PROFILES[0].disable()  # this thread's: not the counting itself
    counts: Counter[str] = Counter()
    for profile in list(_PROFILES):
        for entry in profile.getstats():
            code = entry.code
            if isinstance(code, str):
                name = code
            else:
                name = f"{Path(code.co_filename).name}:{code.co_firstlineno}:{code.co_name}"
            counts[name] += entry.callcount
    _PROFILES[0].enable()
    return counts


class SqlCounts:
    """Statements (by kind, and by text with a ``#`` in front), parameter bytes, fetched rows
    and SQLite VM steps, filled by engine hooks."""

    def __init__(self) -> None:
        self.statements: Counter[str] = Counter()
        self.param_bytes = 0
        self.rows = 0
        self.vm_steps: Counter[str] = Counter()
        """SQLite virtual-machine instructions (in hundreds), by statement text."""
        self.current: dict[int, str] = {}

    def snapshot(self) -> tuple[Counter[str], int, int, Counter[str]]:
        return Counter(self.statements), self.param_bytes, self.rows, Counter(self.vm_steps)


def instrument(engine: Any, sql: SqlCounts) -> None:
    """Fill ``sql`` from ``engine``'s statements (and the rows fetched everywhere: SQLAlchemy's
    and the compiled statements' of :mod:`interlock.storage.compiled`)."""

    @event.listens_for(engine, "before_cursor_execute")
    def _before(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_a: Any) -> None:
        words = statement.split()
        sql.statements[words[0].upper() if words else "?"] += 1
        sql.statements["#" + " ".join(words)[:110]] += 1
        sql.param_bytes += len(repr(parameters))
        sql.current[threading.get_ident()] = " ".join(words)[:110]

    if engine.dialect.name == "sqlite":

        @event.listens_for(engine, "connect")
        def _connect(dbapi_connection: Any, _record: Any) -> None:
            def step() -> int:
                sql.vm_steps[sql.current.get(threading.get_ident(), "?")] += 1
                return 0

            dbapi_connection.set_progress_handler(step, 100)

    from sqlalchemy.engine import cursor as cursor_module

    strategy = cursor_module.CursorFetchStrategy

    def counted(name: str) -> None:
        original = getattr(strategy, name)

        def fetch(self: Any, result: Any, dbapi_cursor: Any, *args: Any) -> Any:
            rows = original(self, result, dbapi_cursor, *args)
            if name == "fetchone":
                sql.rows += rows is not None
            else:
                sql.rows += len(rows)
            return rows

        setattr(strategy, name, fetch)

    for name in ("fetchone", "fetchmany", "fetchall"):
        counted(name)

    # Hot statements bypass SQLAlchemy's fetching (storage.compiled): count the rows they read.
    from interlock.storage.compiled import Compiled

    processed = Compiled.rows

    def rows(self: Compiled, raw: Any) -> list[Any]:
        out = processed(self, raw)
        sql.rows += len(out)
        return out

    Compiled.rows = rows  # type: ignore[method-assign]


async def measure(database_url: str | None, turns: int, at: list[int]) -> dict[int, Any]:
    samples: dict[int, list[Any]] = {}
    wanted = {t - i for t in at for i in range(SAMPLES)}
    with tempfile.TemporaryDirectory(prefix="interlock-turns-") as tmp:
        if database_url is None:
            _path, database_url = prepare_database(Path(tmp))
        sql = SqlCounts()
        async with inprocess_server(bench_settings(database_url)) as live:
            instrument(live.services.db.engine, sql)
            client = LoadClient(live.url)
            # Counting between turns can take longer than the server keeps an idle connection
            # (uvicorn: 5 s); a connection idle for over a second is not reused.
            client._requests.connector._keepalive_timeout = 1.0  # type: ignore[union-attr]
            try:
                conversation_id = await client.new_conversation()
                async with client.events(conversation_id) as stream:
                    for turn in range(1, turns + 1):
                        before = (
                            (call_counts(), *sql.snapshot(), gc_counts())
                            if turn in wanted
                            else None
                        )
                        await hitl_cycle(client, stream, conversation_id, turn)
                        await live.services.engine.wait_idle()
                        if before is not None:
                            calls, statements, param_bytes, rows, steps, gcs = (
                                call_counts(),
                                *sql.snapshot(),
                                gc_counts(),
                            )
                            samples.setdefault(turn, []).append(
                                (
                                    calls - before[0],
                                    statements - before[1],
                                    param_bytes - before[2],
                                    rows - before[3],
                                    steps - before[4],
                                    [a - b for a, b in zip(gcs, before[5], strict=True)],
                                )
                            )
            finally:
                await client.aclose()
    return {t: [samples[t - i][0] for i in range(SAMPLES) if t - i in samples] for t in at}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=200, help="turns of the conversation")
    parser.add_argument(
        "--at", default="10,200", help="turns to count at, ascending, each at most --turns"
    )
    parser.add_argument(
        "--database-url", default=None, help="a migrated database (default: SQLite)"
    )
    parser.add_argument("--top", type=int, default=25, help="rows of each list of growth")
    parser.add_argument(
        "--statements",
        action="store_true",
        help="also list the statements and SQLite VM steps that grew most",
    )
    args = parser.parse_args()
    try:
        at = [int(x) for x in args.at.split(",")]
    except ValueError:
        parser.error(f"--at takes turn numbers separated by commas, got {args.at!r}")
    if at != sorted(at) or at[0] < 1 or at[-1] > args.turns:
        parser.error(f"--at takes ascending turns from 1 to --turns ({args.turns}), got {args.at}")
    profile = cProfile.Profile()
    _PROFILES.append(profile)
    threading.setprofile(_start_thread_profile)
    profile.enable()
    result = run_async(measure(args.database_url, args.turns, at))
    profile.disable()
    threading.setprofile(None)  # type: ignore[arg-type]
    rows = []
    for t in at:
        runs = result[t]
        calls = median([sum(r[0].values()) for r in runs])
        py_functions = median([sum(v for k, v in r[0].items() if k[0] != "<") for r in runs])
        stmts = median([sum(v for k, v in r[1].items() if not k.startswith("#")) for r in runs])
        rows.append(
            (
                t,
                calls,
                py_functions,
                stmts,
                median([r[2] for r in runs]),
                median([r[3] for r in runs]),
                median([sum(r[4].values()) for r in runs]),
                _median_turn(runs)[5],
            )
        )
    print(f"per turn (median of {SAMPLES} turns ending at each):")
    print(
        f"{'turn':>6} {'py calls':>10} {'of Python':>10} {'SQL stmts':>10} {'param B':>9}"
        f" {'rows read':>10} {'VM steps/100':>13}  gc runs (gen 0,1,2), tracked objects after"
    )
    for t, calls, py_functions, stmts, pbytes, fetched, steps, gcs in rows:
        print(
            f"{t:>6} {calls:>10.0f} {py_functions:>10.0f} {stmts:>10.0f} {pbytes:>9.0f}"
            f" {fetched:>10.0f} {steps:>13.0f}"
            f"  {gcs[:3]} {gc_counts()[3] if t == at[-1] else ''}"
        )
    first, last = _median_turn(result[at[0]]), _median_turn(result[at[-1]])
    kinds = sorted({k for k in first[1] | last[1] if not k.startswith("#")})
    print("statements by kind: " + "  ".join(f"{k} {first[1][k]}→{last[1][k]}" for k in kinds))
    growth = Counter({k: last[0][k] - first[0][k] for k in last[0] | first[0]})
    print(f"functions whose calls grew most (turn {at[0]} → {at[-1]}):")
    for name, delta in growth.most_common(args.top):
        if delta <= 0:
            break
        print(f"  {first[0][name]:>8} → {last[0][name]:>8}  {name}")
    if args.statements:
        texts = Counter({k: last[1][k] - first[1][k] for k in last[1] | first[1] if k[0] == "#"})
        for text, _delta in texts.most_common(args.top):
            print(f"  {first[1][text]:>4} → {last[1][text]:>4}  {text[1:]}")
        steps = Counter({k: last[4][k] - first[4][k] for k in last[4] | first[4]})
        print("SQLite VM steps (hundreds) per statement, grown most:")
        for text, _delta in steps.most_common(args.top):
            print(f"  {first[4][text]:>5} → {last[4][text]:>5}  {text}")


if __name__ == "__main__":
    main()
