"""Interlock benchmark, (a)-(f) of issue 7, section 4.

    python bench/run.py [--quick] [--json FILE] [--only a,c,f] [--duration S] [--profile-server FILE]

(a) HITL cycles over HTTP + SSE (server in its own process) against the bare in-process
    LangGraph baseline (create_agent + HumanInTheLoopMiddleware + SqliteSaver), in
    interleaved rounds: rates and server CPU per cycle;
(b) one conversation to 200 turns, each with one approval: whole-turn CPU, bytes written and
    write time at turns 10/50/100/200, with the LangGraph SqliteSaver for contrast;
(c) one worker: 500 idle event streams + 50 conversations cycling at once;
(d) two workers on PostgreSQL against one, same load generator, every event checked;
(e) kill -9 of one of two workers under load;
(f) 1,000 paused conversations: memory, and restart to first answer.

Every figure and ratio printed comes from this one run; each target is printed with
met/missed. The run never fails on a miss. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import traceback
from dataclasses import replace
from pathlib import Path
from typing import Any

from baseline_langgraph import baseline_cycles, baseline_growth
from common import TurnRecord, machine_info, ratio, run_async, trend_ratio
from failover import failover
from hitl_http import CycleStats, Mode, interlock_cycles
from load import run_load
from paused import paused_conversations
from plans import FULL, LEASE_S, QUICK, Plan
from report import print_report
from server import (
    ServerProcess,
    postgres_database,
    postgres_problem,
    prepare_database,
    server_process,
)
from storage_growth import at_turn, interlock_growth, report_turns
from workers import cross_worker_problem, lease_problem


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def loadavg() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - not Unix
        return []


# -- (a) ---------------------------------------------------------------------------------------
def bench_cycles(plan: Plan, work: Path, profile: Path | None) -> dict[str, Any]:
    """Alternate Interlock and baseline rounds for both modes; merge per system and mode."""
    results: dict[str, Any] = {}
    _db_path, url = prepare_database(work / "a")
    with server_process(url, profile=profile) as server:
        modes: tuple[Mode, ...] = ("fresh", "same")
        for mode in modes:
            per: dict[str, list[CycleStats]] = {"interlock": [], "langgraph": []}
            for round_no in range(plan.rounds):
                log(f"(a) {mode} round {round_no + 1}/{plan.rounds}: interlock")
                per["interlock"].append(
                    run_async(interlock_cycles(server, plan.cycles_per_round, mode))
                )
                log(f"(a) {mode} round {round_no + 1}/{plan.rounds}: langgraph baseline")
                directory = work / f"baseline-{mode}-{round_no}"
                directory.mkdir()
                per["langgraph"].append(baseline_cycles(directory, plan.cycles_per_round, mode))
            merged = {system: _combine(stats) for system, stats in per.items()}
            il, lg = merged["interlock"], merged["langgraph"]
            results[mode] = {
                "interlock": il.as_dict(),
                "langgraph": lg.as_dict(),
                "ratio": ratio(il.per_s, lg.per_s),
                "server_cpu_ratio": ratio(il.server_cpu_ms, lg.cpu_ms),
                "rounds": {s: [r.as_dict() for r in stats] for s, stats in per.items()},
            }
    return results


def _combine(rounds: list[CycleStats]) -> CycleStats:
    """Total cycles over total time; percentiles as the median of the rounds' percentiles."""
    cycles = sum(r.cycles for r in rounds)
    seconds = sum(r.seconds for r in rounds)
    return replace(
        rounds[0],
        cycles=cycles,
        seconds=seconds,
        per_s=cycles / seconds,
        p50_ms=sorted(r.p50_ms for r in rounds)[len(rounds) // 2],
        p95_ms=sorted(r.p95_ms for r in rounds)[len(rounds) // 2],
        cpu_ms=sum(r.cpu_ms * r.cycles for r in rounds) / cycles,
        server_cpu_ms=sum(r.server_cpu_ms * r.cycles for r in rounds) / cycles,
    )


# -- (b) ---------------------------------------------------------------------------------------
GROWTH_COLUMNS = (
    "wal_bytes",
    "main_growth",
    "commits",
    "writes",
    "db_write_ms",
    "commit_ms",
    "db_write_cpu_ms",
    "read_ms",
    "wall_ms",
    "cpu_ms",
)


def _growth_summary(
    records: list[TurnRecord], turns: int, fresh: list[TurnRecord] | None = None
) -> dict[str, Any]:
    """Window medians at the report turns, last/first ratios, and Theil-Sen trend ratios.

    With ``fresh`` (a new conversation's first turns, alternated with the last turns of
    ``records``; see :func:`interlock_growth`), also the "paired" ratio: ``records``' window
    at the last point over ``fresh``'s window at the first, measured alternately.
    """
    points = report_turns(turns)
    rows = {t: {c: at_turn(records, t, c) for c in GROWTH_COLUMNS} for t in points}
    first, last = points[0], points[-1]
    xs = [float(r.turn) for r in records]
    paired = {c: at_turn(fresh, first, c) for c in GROWTH_COLUMNS} if fresh else None

    def ratios(column: str) -> dict[str, float]:
        ys = [float(getattr(r, column)) for r in records]
        out = {
            "window": ratio(rows[last][column], rows[first][column]),
            "trend": trend_ratio(xs, ys, first, last),
        }
        if paired is not None:
            out["paired"] = ratio(rows[last][column], paired[column])
        return out

    return {
        "points": rows,
        "first": first,
        "last": last,
        "ratios": {c: ratios(c) for c in GROWTH_COLUMNS if c not in ("commits", "writes")},
        "per_turn": [r.as_dict() for r in records],
        **({"paired_point": paired, "fresh_turns": [r.as_dict() for r in fresh]} if fresh else {}),
    }


def bench_growth(plan: Plan, work: Path) -> dict[str, Any]:
    # A new conversation's first turns alternate with the long one's last: the two points of
    # the ratio are measured side by side, under the same load; and the drive is repeated,
    # each figure the median over every run's turns (bench/README.md).
    paired = report_turns(plan.turns)[0]
    records: list[TurnRecord] = []
    fresh: list[TurnRecord] = []
    for run in range(1, plan.growth_runs + 1):
        directory = work / f"b{run}"
        directory.mkdir()
        log(f"(b) interlock: one conversation to {plan.turns} turns ({run}/{plan.growth_runs})")
        run_records, run_fresh = run_async(interlock_growth(directory, plan.turns, paired=paired))
        records += run_records
        fresh += run_fresh
    log(f"(b) langgraph baseline: one thread to {plan.baseline_turns} turns")
    base_dir = work / "b-baseline"
    base_dir.mkdir()
    base_records = baseline_growth(base_dir, plan.baseline_turns)
    return {
        "interlock": {**_growth_summary(records, plan.turns, fresh), "runs": plan.growth_runs},
        "langgraph": _growth_summary(base_records, plan.baseline_turns),
    }


# -- (c) ---------------------------------------------------------------------------------------
def bench_one_worker(plan: Plan, work: Path) -> dict[str, Any]:
    _db_path, url = prepare_database(work / "c")
    with server_process(url) as server:
        log(f"(c) {plan.idle_streams} idle streams + 1 active for {plan.single_s:g} s")
        single = run_async(
            run_load(
                "c1",
                [server.url],
                [server.pid],
                active=1,
                idle=plan.idle_streams,
                duration_s=plan.single_s,
                idle_window_s=plan.idle_window_s,
            )
        )
        log(f"(c) {plan.idle_streams} idle streams + {plan.active} active for {plan.load_s:g} s")
        many = run_async(
            run_load(
                "c50",
                [server.url],
                [server.pid],
                active=plan.active,
                idle=plan.idle_streams,
                duration_s=plan.load_s,
            )
        )
    return {
        "single": single.as_dict(),
        "many": many.as_dict(),
        "throughput_ratio": ratio(many.per_s, single.per_s),
    }


# -- (d) ---------------------------------------------------------------------------------------
def bench_two_workers(plan: Plan) -> dict[str, Any]:
    problem = postgres_problem() or cross_worker_problem()
    if problem:
        return {"unavailable": problem}
    idle = plan.idle_streams // 5
    out: dict[str, Any] = {}
    for workers in (1, 2):
        with postgres_database() as url:
            servers = [ServerProcess(url) for _ in range(workers)]
            try:
                handles = [s.start() for s in servers]
                log(f"(d) {workers} worker(s) on PostgreSQL: {plan.workers_active} active")
                stats = run_async(
                    run_load(
                        f"d{workers}",
                        [h.url for h in handles],
                        [h.pid for h in handles],
                        active=plan.workers_active,
                        idle=idle,
                        duration_s=plan.workers_s,
                        cross=workers > 1,
                        database=url.rsplit("/", 1)[1],
                    )
                )
            finally:
                for server in servers:
                    server.stop()
        out[f"workers_{workers}"] = stats.as_dict()
    out["ratio"] = ratio(out["workers_2"]["per_s"], out["workers_1"]["per_s"])
    return out


# -- (e) ---------------------------------------------------------------------------------------
def bench_failover(plan: Plan) -> dict[str, Any]:
    problem = postgres_problem() or lease_problem() or cross_worker_problem()
    if problem:
        return {"unavailable": problem}
    env = {"INTERLOCK_RUN_LEASE_S": str(LEASE_S)}
    with postgres_database() as url:
        servers = [ServerProcess(url, first_token_delay_s=0.3, env=env) for _ in range(2)]
        try:
            for server in servers:
                server.start()
            log(
                f"(e) two workers, {plan.failover_conversations} conversations; kill -9 of one "
                f"after {plan.before_kill_s:g} s"
            )
            stats = run_async(
                failover(
                    servers,
                    url,
                    conversations=plan.failover_conversations,
                    lease_s=LEASE_S,
                    before_kill_s=plan.before_kill_s,
                    after_kill_s=plan.after_kill_s,
                )
            )
        finally:
            for server in servers:
                server.stop()
    return stats.as_dict()


# -- (f) ---------------------------------------------------------------------------------------
def bench_paused(plan: Plan, work: Path) -> dict[str, Any]:
    _db_path, url = prepare_database(work / "f")
    log(f"(f) {plan.paused} paused conversations, then a restart")
    return paused_conversations(url, plan.paused).as_dict()


PARTS = "a,b,c,d,e,f"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="short run (see bench/README.md)")
    parser.add_argument(
        "--json", type=Path, default=None, metavar="FILE", help="write results here"
    )
    parser.add_argument("--only", default=PARTS, help="parts to run, e.g. 'a' or 'c,f'")
    parser.add_argument(
        "--duration",
        type=float,
        default=None,
        metavar="S",
        help="seconds of load in (c) with 50 active and in each (d) run (full: 60 and 30)",
    )
    parser.add_argument(
        "--profile-server",
        type=Path,
        default=None,
        metavar="FILE",
        help="cProfile the (a) server process into FILE (slows it down; figures not comparable)",
    )
    args = parser.parse_args()
    plan = QUICK if args.quick else FULL
    if args.duration is not None:
        plan = replace(plan, load_s=args.duration, workers_s=args.duration)
    parts = {p.strip() for p in args.only.split(",") if p.strip()}
    if not parts or not parts <= set(PARTS.split(",")):
        parser.error(f"--only takes parts among {PARTS}, got {args.only!r}")
    started = time.perf_counter()
    results: dict[str, Any] = {
        "plan_name": "quick" if args.quick else "full",
        "plan": plan.__dict__,
        "machine": machine_info(),
        "loadavg_start": loadavg(),
        "lease_s": LEASE_S,
    }
    with tempfile.TemporaryDirectory(prefix="interlock-bench-") as tmp:
        work = Path(tmp)
        steps = {
            "a": ("cycles", lambda: bench_cycles(plan, work, args.profile_server)),
            "b": ("growth", lambda: bench_growth(plan, work)),
            "c": ("one_worker", lambda: bench_one_worker(plan, work)),
            "d": ("two_workers", lambda: bench_two_workers(plan)),
            "e": ("failover", lambda: bench_failover(plan)),
            "f": ("paused", lambda: bench_paused(plan, work)),
        }
        for part, (key, step) in steps.items():
            if part in parts:
                try:
                    results[key] = step()
                except Exception as exc:  # report the other parts anyway
                    log(f"({part}) failed: {type(exc).__name__}: {exc}")
                    traceback.print_exc()
                    results[key] = {"failed": f"{type(exc).__name__}: {exc}"}
    results["loadavg_end"] = loadavg()
    results["elapsed_s"] = time.perf_counter() - started
    print_report(results)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
        log(f"wrote {args.json}")


if __name__ == "__main__":
    main()
