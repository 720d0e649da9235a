"""Interlock benchmark: HITL throughput, storage growth, decision latency.

    python bench/run.py [--quick] [--json FILE] [--only a,b,c] [--profile-server FILE]

(a) full HITL cycles per second over HTTP + SSE (server in its own process) against the bare
    in-process LangGraph baseline (create_agent + HumanInTheLoopMiddleware + SqliteSaver),
    in interleaved rounds so background load hits both sides alike;
(b) one conversation to 200 turns, each with one approval: bytes written and write time per
    turn at turns 10/50/100/200, with the LangGraph SqliteSaver for contrast;
(c) decision POST → first resumed SSE event latency, p50/p95.

Every figure and ratio printed comes from this one run. See bench/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from baseline_langgraph import baseline_cycles, baseline_growth
from common import TurnRecord, machine_info, ratio, run_async, trend_ratio
from decision_latency import LatencyStats, decision_latency
from hitl_http import CycleStats, Mode, interlock_cycles
from server import prepare_database, server_process
from storage_growth import at_turn, interlock_growth, report_turns

TARGET_CYCLE_RATIO = 1.0
TARGET_BYTES_RATIO = 1.2
TARGET_TIME_RATIO = 1.3
TARGET_P50_MS = 5.0
TARGET_P95_MS = 20.0


@dataclass(frozen=True)
class Plan:
    rounds: int
    cycles_per_round: int
    turns: int
    baseline_turns: int
    latency_samples: int


FULL = Plan(rounds=4, cycles_per_round=50, turns=200, baseline_turns=200, latency_samples=200)
QUICK = Plan(rounds=2, cycles_per_round=20, turns=50, baseline_turns=50, latency_samples=100)


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
            results[mode] = {
                "interlock": merged["interlock"].as_dict(),
                "langgraph": merged["langgraph"].as_dict(),
                "ratio": ratio(merged["interlock"].per_s, merged["langgraph"].per_s),
                "cpu_ratio": ratio(merged["langgraph"].cpu_ms, merged["interlock"].cpu_ms),
                "rounds": {s: [r.as_dict() for r in stats] for s, stats in per.items()},
            }
    return results


def _combine(rounds: list[CycleStats]) -> CycleStats:
    """Total cycles over total time; percentiles as the median of the rounds' percentiles."""
    cycles = sum(r.cycles for r in rounds)
    seconds = sum(r.seconds for r in rounds)
    cpu_ms = sum(r.cpu_ms * r.cycles for r in rounds) / cycles
    server_cpu_ms = sum(r.server_cpu_ms * r.cycles for r in rounds) / cycles
    p50 = sorted(r.p50_ms for r in rounds)[len(rounds) // 2]
    p95 = sorted(r.p95_ms for r in rounds)[len(rounds) // 2]
    return CycleStats(
        system=rounds[0].system,
        mode=rounds[0].mode,
        cycles=cycles,
        seconds=seconds,
        per_s=cycles / seconds,
        p50_ms=p50,
        p95_ms=p95,
        cpu_ms=cpu_ms,
        server_cpu_ms=server_cpu_ms,
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


def _growth_summary(records: list[TurnRecord], turns: int) -> dict[str, Any]:
    """Window medians at the report turns, last/first ratios, and Theil-Sen trend ratios."""
    points = report_turns(turns)
    rows = {t: {c: at_turn(records, t, c) for c in GROWTH_COLUMNS} for t in points}
    first, last = points[0], points[-1]
    xs = [float(r.turn) for r in records]

    def ratios(column: str) -> dict[str, float]:
        ys = [float(getattr(r, column)) for r in records]
        return {
            "window": ratio(rows[last][column], rows[first][column]),
            "trend": trend_ratio(xs, ys, first, last),
        }

    return {
        "points": rows,
        "first": first,
        "last": last,
        "ratios": {c: ratios(c) for c in GROWTH_COLUMNS if c not in ("commits", "writes")},
        "per_turn": [r.as_dict() for r in records],
    }


def bench_growth(plan: Plan, work: Path) -> dict[str, Any]:
    directory = work / "b"
    directory.mkdir()
    log(f"(b) interlock: one conversation to {plan.turns} turns")
    records = run_async(interlock_growth(directory, plan.turns))
    log(f"(b) langgraph baseline: one thread to {plan.baseline_turns} turns")
    base_dir = work / "b-baseline"
    base_dir.mkdir()
    base_records = baseline_growth(base_dir, plan.baseline_turns)
    return {
        "interlock": _growth_summary(records, plan.turns),
        "langgraph": _growth_summary(base_records, plan.baseline_turns),
    }


# -- (c) ---------------------------------------------------------------------------------------
def bench_latency(plan: Plan, work: Path) -> LatencyStats:
    _db_path, url = prepare_database(work / "c")
    with server_process(url) as server:
        log(f"(c) decision latency: {plan.latency_samples} samples")
        return run_async(decision_latency(server.url, plan.latency_samples))


# -- report ------------------------------------------------------------------------------------
def verdict(ok: bool) -> str:
    return "PASS" if ok else "MISS"


def print_growth(growth: dict[str, Any]) -> None:
    print("(b) one conversation, every turn with one approval; medians of the 5 turns ending at k")
    print("    write = DBAPI COMMIT + INSERT/UPDATE/DELETE execution; CPU = the writing thread's")
    for system, name in (
        ("interlock", "interlock (SQLAlchemy, WAL; server in this process)"),
        ("langgraph", "langgraph SqliteSaver (checkpoint database)"),
    ):
        g = growth[system]
        print(f"    {name}")
        print(
            f"      {'turn':>5}{'WAL bytes':>11}{'main +B':>10}{'commits':>8}{'writes':>7}"
            f"{'write ms':>9}{'commit':>8}{'wr CPU':>8}{'SELECT':>8}{'turn ms':>9}{'turn CPU':>9}"
        )
        for turn, row in g["points"].items():
            print(
                f"      {turn:>5}{row['wal_bytes']:>11,.0f}{row['main_growth']:>10,.0f}"
                f"{row['commits']:>8.0f}{row['writes']:>7.0f}{row['db_write_ms']:>9.2f}"
                f"{row['commit_ms']:>8.2f}{row['db_write_cpu_ms']:>8.2f}{row['read_ms']:>8.2f}"
                f"{row['wall_ms']:>9.1f}{row['cpu_ms']:>9.1f}"
            )
        r = g["ratios"]
        first, last = g["first"], g["last"]
        target = system == "interlock"

        def show(label: str, column: str, limit: float | None, r: dict[str, Any] = r) -> str:
            window, trend = r[column]["window"], r[column]["trend"]
            text = f"{label} {window:.2f} (trend {trend:.2f})"
            if limit is not None:
                text += f" ≤ {limit} {verdict(window <= limit)}"
            return text

        print(
            f"      turn {last}/turn {first}: "
            + "; ".join(
                [
                    show("bytes", "wal_bytes", TARGET_BYTES_RATIO if target else None),
                    show("write time", "db_write_ms", TARGET_TIME_RATIO if target else None),
                ]
            )
        )
        print(
            "        also: "
            + "; ".join(
                [
                    show("commit", "commit_ms", None),
                    show("write CPU", "db_write_cpu_ms", None),
                    show("turn wall", "wall_ms", None),
                    show("turn CPU", "cpu_ms", None),
                ]
            )
        )


def print_report(results: dict[str, Any]) -> None:
    m = results["machine"]
    line = "-" * 100
    print(line)
    print(
        f"Interlock benchmark ({results['plan_name']}) — {m['cores']} cores "
        f"({m['usable_cores']} usable), {m['cpu']}, Python {m['python']} ({m['python_impl']}), "
        f"SQLite {m['sqlite']}"
    )
    v = m["versions"]
    print(
        f"langgraph {v['langgraph']}, langchain {v['langchain']}, langchain-core "
        f"{v['langchain-core']}, checkpoint-sqlite {v['langgraph-checkpoint-sqlite']}, "
        f"fastapi {v['fastapi']}, uvicorn {v['uvicorn']}, sqlalchemy {v['sqlalchemy']}"
    )
    src = m["source"]
    print(
        f"server code: commit {src['commit']} with {src['server_files_changed']} changed/new "
        "files under server/ (uncommitted work included)"
    )
    print(
        f"load average at start {results['loadavg_start']}, at end {results['loadavg_end']}; "
        f"run took {results['elapsed_s']:.1f} s"
    )
    print(line)
    if "cycles" in results:
        print("(a) full HITL cycles (message → paused → approve → tool → answer), sequential")
        print(
            f"    {'mode':<12}{'system':<34}{'cycles':>7}{'cyc/s':>8}{'p50 ms':>8}{'p95 ms':>8}"
            f"{'CPU ms/cyc':>11}{'server':>8}"
        )
        for mode, label in (("fresh", "fresh conv."), ("same", "one conv.")):
            block = results["cycles"][mode]
            for system, name in (
                ("interlock", "interlock HTTP+SSE (own process)"),
                ("langgraph", "langgraph in-process baseline"),
            ):
                s = block[system]
                print(
                    f"    {label:<12}{name:<34}{s['cycles']:>7}{s['per_s']:>8.1f}"
                    f"{s['p50_ms']:>8.1f}{s['p95_ms']:>8.1f}{s['cpu_ms']:>11.1f}{s['server_cpu_ms']:>8.1f}"
                )
            r = block["ratio"]
            print(
                f"    {'':<12}ratio interlock/baseline = {r:.2f} cycles/s "
                f"(target ≥ {TARGET_CYCLE_RATIO}) {verdict(r >= TARGET_CYCLE_RATIO)}; "
                f"CPU per cycle baseline/interlock = {block['cpu_ratio']:.2f}"
            )
        print(line)
    if "growth" in results:
        print_growth(results["growth"])
        print(line)
    if "latency" in results:
        c = results["latency"]
        print("(c) decision POST → first resumed SSE event (server in its own process)")
        print(
            f"    samples {c['samples']} (first events: {c['first_event_types']}); "
            f"p50 {c['p50_ms']:.2f} ms (target ≤ {TARGET_P50_MS}) {verdict(c['p50_ms'] <= TARGET_P50_MS)}; "
            f"p95 {c['p95_ms']:.2f} ms (target ≤ {TARGET_P95_MS}) {verdict(c['p95_ms'] <= TARGET_P95_MS)}; "
            f"p99 {c['p99_ms']:.2f}; max {c['max_ms']:.2f}"
        )
        print(
            f"    decision POST round trip: p50 {c['post_p50_ms']:.2f} ms, p95 {c['post_p95_ms']:.2f} ms"
        )
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="short run (fewer cycles, 50 turns)")
    parser.add_argument(
        "--json", type=Path, default=None, metavar="FILE", help="write results here"
    )
    parser.add_argument("--only", default="a,b,c", help="parts to run, e.g. 'a' or 'b,c'")
    parser.add_argument(
        "--profile-server",
        type=Path,
        default=None,
        metavar="FILE",
        help="cProfile the (a) server process into FILE (slows it down; figures not comparable)",
    )
    args = parser.parse_args()
    plan = QUICK if args.quick else FULL
    parts = {p.strip() for p in args.only.split(",") if p.strip()}
    started = time.perf_counter()
    results: dict[str, Any] = {
        "plan_name": "quick" if args.quick else "full",
        "plan": plan.__dict__,
        "machine": machine_info(),
        "loadavg_start": loadavg(),
    }
    with tempfile.TemporaryDirectory(prefix="interlock-bench-") as tmp:
        work = Path(tmp)
        if "a" in parts:
            results["cycles"] = bench_cycles(plan, work, args.profile_server)
        if "b" in parts:
            results["growth"] = bench_growth(plan, work)
        if "c" in parts:
            results["latency"] = bench_latency(plan, work).as_dict()
    results["loadavg_end"] = loadavg()
    results["elapsed_s"] = time.perf_counter() - started
    print_report(results)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
        log(f"wrote {args.json}")


if __name__ == "__main__":
    main()
