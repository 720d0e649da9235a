"""Who used the machine's CPU during a load window: servers, PostgreSQL, load generator, others.

On a 2-core machine the servers share the cores with PostgreSQL, the load generator and
whatever else runs (other benchmarks, tests). A throughput figure means little without those
shares, so the loads read, at the start and end of their window:

* the server processes: ``/proc/<pid>/stat`` user + system (every thread);
* PostgreSQL: the same, summed over the backends connected to the benchmark's database (their
  process title names it) plus PostgreSQL's own background processes (WAL writer,
  checkpointer, ...); backends that exit within the window are lost, so it is a lower bound;
* the load generator: ``time.process_time()`` of this process;
* the whole machine: ``/proc/stat`` (busy = every state but idle and iowait), so "others" is
  what the machine used beyond those three.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from common import process_cpu_seconds

_PG_BACKGROUND = (
    "checkpointer",
    "background writer",
    "walwriter",
    "autovacuum launcher",
    "logical replication launcher",
)


def _machine_busy_s() -> float:
    """CPU seconds every core has been busy since boot (NaN off Linux)."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return float("nan")
    ticks = [int(f) for f in fields]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
    return (sum(ticks[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def postgres_pids(database: str | None) -> list[int]:
    """PostgreSQL processes serving ``database`` (by process title), plus its background ones."""
    pids: list[int] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            title = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if not title.startswith("postgres: "):
            continue
        # "postgres: [<cluster>: ]<user> <database> <client> <state>" or "...: walwriter"
        title = title.strip()
        if title.rsplit(": ", 1)[-1] in _PG_BACKGROUND or (
            database is not None and f" {database} " in f"{title} "
        ):
            pids.append(int(entry.name))
    return pids


@dataclass
class Shares:
    """CPU seconds used within one window, per side."""

    seconds: float = 0.0
    servers_s: float = 0.0
    postgres_s: float = 0.0
    generator_s: float = 0.0
    machine_s: float = 0.0

    @property
    def others_s(self) -> float:
        return max(0.0, self.machine_s - self.servers_s - self.postgres_s - self.generator_s)

    def as_dict(self) -> dict[str, float]:
        return {
            "seconds": self.seconds,
            "servers_s": self.servers_s,
            "postgres_s": self.postgres_s,
            "generator_s": self.generator_s,
            "machine_s": self.machine_s,
            "others_s": self.others_s,
        }


class CpuMeter:
    """Reads the shares at :meth:`start` and :meth:`stop`.

    Args:
        server_pids: The server processes.
        database: The PostgreSQL database the servers use (None on SQLite: no PostgreSQL share).
    """

    def __init__(self, server_pids: list[int], database: str | None = None) -> None:
        self._server_pids = server_pids
        self._database = database
        self._start: dict[str, float] = {}
        self._pg_start: dict[int, float] = {}

    def _postgres(self) -> dict[int, float]:
        if self._database is None:
            return {}
        return {pid: process_cpu_seconds(pid) for pid in postgres_pids(self._database)}

    def start(self) -> None:
        self._pg_start = self._postgres()
        self._start = {
            "at": time.perf_counter(),
            "servers": sum(process_cpu_seconds(p) for p in self._server_pids),
            "generator": time.process_time(),
            "machine": _machine_busy_s(),
        }

    def stop(self) -> Shares:
        pg_end = self._postgres()
        postgres = sum(
            cpu - self._pg_start.get(pid, 0.0) for pid, cpu in pg_end.items() if cpu == cpu
        )
        return Shares(
            seconds=time.perf_counter() - self._start["at"],
            servers_s=sum(process_cpu_seconds(p) for p in self._server_pids)
            - self._start["servers"],
            postgres_s=postgres,
            generator_s=time.process_time() - self._start["generator"],
            machine_s=_machine_busy_s() - self._start["machine"],
        )
