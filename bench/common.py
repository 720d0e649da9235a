"""Shared helpers: machine info, statistics, the event loop, SQLite file sizes."""

from __future__ import annotations

import asyncio
import os
import platform
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Literal, TypeVar

T = TypeVar("T")

ASK_PROMPT = "add a note {name}"
"""The request every cycle sends: the offline model answers it with one ``notes_add`` call."""

WARMUP_CYCLES = 5


def loop_factory() -> Callable[[], asyncio.AbstractEventLoop] | None:
    """Return uvloop's loop factory when installed (uvicorn's ``loop="auto"`` picks it too)."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvicorn[standard] ships it
        return None
    return uvloop.new_event_loop


def run_async(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` on a fresh event loop (uvloop when available)."""
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        return runner.run(coro)


def percentile(values: Sequence[float], p: float) -> float:
    """Return the ``p``-th percentile (0-100) of ``values`` with linear interpolation."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * p / 100
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def median(values: Sequence[float]) -> float:
    """Return the median, NaN for no values."""
    return statistics.median(values) if values else float("nan")


def ratio(a: float, b: float) -> float:
    """Return ``a / b`` (NaN when ``b`` is 0)."""
    return a / b if b else float("nan")


def theil_sen(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """Return ``(intercept, slope)`` of the Theil-Sen line: robust to outliers (load spikes)."""
    slopes = [
        (ys[j] - ys[i]) / (xs[j] - xs[i])
        for i in range(len(xs))
        for j in range(i + 1, len(xs))
        if xs[j] != xs[i]
    ]
    slope = median(slopes) if slopes else 0.0
    intercept = median([y - slope * x for x, y in zip(xs, ys, strict=True)])
    return intercept, slope


def trend_ratio(xs: Sequence[float], ys: Sequence[float], first: float, last: float) -> float:
    """Return fitted(last) / fitted(first) on the Theil-Sen line through ``(xs, ys)``."""
    intercept, slope = theil_sen(xs, ys)
    return ratio(intercept + slope * last, intercept + slope * first)


Kind = Literal["commit", "write", "read"]


@dataclass
class DbTimes:
    """Wall and CPU (``time.thread_time``) time of commits and statements, with counts.

    CPU time is the thread's own (user + system): unlike wall time, it does not count the
    time the thread sat preempted on a busy machine.
    """

    commits: int = 0
    commit_s: float = 0.0
    commit_cpu_s: float = 0.0
    writes: int = 0
    write_s: float = 0.0
    write_cpu_s: float = 0.0
    reads: int = 0
    read_s: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def reset(self) -> None:
        with self.lock:
            self.commits = self.writes = self.reads = 0
            self.commit_s = self.commit_cpu_s = self.write_s = self.write_cpu_s = 0.0
            self.read_s = 0.0

    def add(self, kind: Kind, started: tuple[float, float]) -> None:
        """Add the time since ``started`` (a :func:`stamp`) to ``kind``."""
        wall = time.perf_counter() - started[0]
        cpu = time.thread_time() - started[1]
        with self.lock:
            if kind == "commit":
                self.commits += 1
                self.commit_s += wall
                self.commit_cpu_s += cpu
            elif kind == "write":
                self.writes += 1
                self.write_s += wall
                self.write_cpu_s += cpu
            else:
                self.reads += 1
                self.read_s += wall


def stamp() -> tuple[float, float]:
    """Return ``(perf_counter, thread_time)`` now."""
    return time.perf_counter(), time.thread_time()


WRITE_VERBS = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def is_write(statement: str) -> bool:
    return statement.lstrip().upper().startswith(WRITE_VERBS)


@dataclass
class TurnRecord:
    """What one turn of one conversation wrote, and how long it took."""

    turn: int
    wal_bytes: int
    main_growth: int
    commits: int
    writes: int
    reads: int
    commit_ms: float
    commit_cpu_ms: float
    write_ms: float
    write_cpu_ms: float
    read_ms: float
    wall_ms: float
    cpu_ms: float

    @property
    def db_write_ms(self) -> float:
        """Write time (wall): DBAPI commits plus INSERT/UPDATE/DELETE execution."""
        return self.commit_ms + self.write_ms

    @property
    def db_write_cpu_ms(self) -> float:
        """Write time (CPU of the writing thread)."""
        return self.commit_cpu_ms + self.write_cpu_ms

    def as_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "db_write_ms": self.db_write_ms,
            "db_write_cpu_ms": self.db_write_cpu_ms,
        }


def turn_record(
    turn: int, wal: int, main_growth: int, times: DbTimes, wall_s: float, cpu_s: float
) -> TurnRecord:
    with times.lock:
        return TurnRecord(
            turn=turn,
            wal_bytes=wal,
            main_growth=main_growth,
            commits=times.commits,
            writes=times.writes,
            reads=times.reads,
            commit_ms=times.commit_s * 1e3,
            commit_cpu_ms=times.commit_cpu_s * 1e3,
            write_ms=times.write_s * 1e3,
            write_cpu_ms=times.write_cpu_s * 1e3,
            read_ms=times.read_s * 1e3,
            wall_ms=wall_s * 1e3,
            cpu_ms=cpu_s * 1e3,
        )


@dataclass(frozen=True)
class FileSizes:
    """Sizes of a SQLite database file and its write-ahead log, in bytes."""

    main: int
    wal: int


def file_sizes(db_path: Path) -> FileSizes:
    """Return the current size of ``db_path`` and ``db_path-wal`` (0 when missing)."""
    wal = Path(f"{db_path}-wal")
    return FileSizes(
        main=db_path.stat().st_size if db_path.exists() else 0,
        wal=wal.stat().st_size if wal.exists() else 0,
    )


def checkpoint_truncate(conn: sqlite3.Connection) -> None:
    """Copy the WAL into the main file and truncate it to 0 bytes.

    Raises:
        RuntimeError: A reader or writer kept the checkpoint from completing.
    """
    busy, _log, _done = conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    if busy:
        raise RuntimeError("wal_checkpoint(TRUNCATE) was blocked by another connection")


def process_cpu_seconds(pid: int) -> float:
    """Return user + system CPU seconds used so far by process ``pid`` (all its threads).

    Reads ``/proc/<pid>/stat`` (Linux); NaN elsewhere.
    """
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def source_state() -> dict[str, Any]:
    """The checkout the server code comes from: commit and how many server files differ."""
    root = Path(__file__).resolve().parents[1]

    def git(*args: str) -> str:
        try:
            done = subprocess.run(
                ["git", *args], cwd=root, capture_output=True, text=True, timeout=10, check=False
            )
        except (OSError, subprocess.TimeoutExpired):
            return ""
        return done.stdout.strip()

    changed = [line for line in git("status", "--porcelain", "--", "server").splitlines() if line]
    return {"commit": git("rev-parse", "--short", "HEAD"), "server_files_changed": len(changed)}


def machine_info() -> dict[str, Any]:
    """Cores, CPU model, Python, SQLite and library versions."""
    cpu_model = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        usable = os.cpu_count() or 0
    versions: dict[str, str] = {}
    for package in ("langgraph", "langchain", "langchain-core", "langgraph-checkpoint-sqlite"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "missing"
    for package in ("fastapi", "uvicorn", "sqlalchemy", "httpx", "uvloop"):
        try:
            versions[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            versions[package] = "missing"
    return {
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "cpu": cpu_model,
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "python_impl": platform.python_implementation(),
        "sqlite": sqlite3.sqlite_version,
        "versions": versions,
        "source": source_state(),
    }
