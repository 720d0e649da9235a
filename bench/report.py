"""The printed report of bench/run.py: every figure with its target and met/missed."""

from __future__ import annotations

import os
from typing import Any

# Targets of issue 7, section 4.
A_SERVER_CPU_RATIO = 2.0  # Interlock server CPU per cycle / baseline CPU per cycle, at most
A_RATE_RATIO = 0.6  # Interlock cycles/s / baseline cycles/s (fresh conversation), at least
B_CPU_RATIO = 1.2  # whole-turn CPU, turn 200 / turn 10, at most
B_BYTES_RATIO = 1.2
B_TIME_RATIO = 1.3
C_POST_P95_MS = 50.0
C_RESUME_P95_MS = 100.0
C_THROUGHPUT_RATIO = 1.5
D_RATIO = 1.6
D_CROSS_P95_MS = 50.0
F_RSS_DELTA_MB = 20.0
F_FIRST_ANSWER_S = 1.5

LINE = "-" * 100


def verdict(ok: bool) -> str:
    return "met" if ok else "MISSED"


def at_most(value: float, limit: float, fmt: str = ".2f", unit: str = "") -> str:
    return f"{value:{fmt}}{unit} (target ≤ {limit:g}{unit}) {verdict(value <= limit)}"


def at_least(value: float, limit: float, fmt: str = ".2f", unit: str = "") -> str:
    return f"{value:{fmt}}{unit} (target ≥ {limit:g}{unit}) {verdict(value >= limit)}"


def zero(value: int, what: str) -> str:
    return f"{what} {value} (target 0) {verdict(value == 0)}"


def print_header(results: dict[str, Any]) -> None:
    m = results["machine"]
    print(LINE)
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
        f"machine load average at start {results['loadavg_start']}, at end "
        f"{results['loadavg_end']}; run took {results['elapsed_s']:.1f} s"
    )
    print(LINE)


def print_cycles(cycles: dict[str, Any]) -> None:
    print("(a) full HITL cycles (message → paused → approve → tool → answer), sequential")
    print(
        f"    {'mode':<12}{'system':<34}{'cycles':>7}{'cyc/s':>8}{'p50 ms':>8}{'p95 ms':>8}"
        f"{'CPU ms/cyc':>11}{'server':>8}{'client':>8}"
    )
    for mode, label in (("fresh", "fresh conv."), ("same", "one conv.")):
        block = cycles[mode]
        for system, name in (
            ("interlock", "interlock HTTP+SSE (own process)"),
            ("langgraph", "langgraph in-process baseline"),
        ):
            s = block[system]
            client = s["cpu_ms"] - s["server_cpu_ms"] if system == "interlock" else 0.0
            print(
                f"    {label:<12}{name:<34}{s['cycles']:>7}{s['per_s']:>8.1f}"
                f"{s['p50_ms']:>8.1f}{s['p95_ms']:>8.1f}{s['cpu_ms']:>11.1f}"
                f"{s['server_cpu_ms']:>8.1f}{client:>8.1f}"
            )
        rate, cpu = block["ratio"], block["server_cpu_ratio"]
        if mode == "fresh":
            print(
                f"    {'':<12}server CPU per cycle / baseline CPU per cycle = "
                f"{at_most(cpu, A_SERVER_CPU_RATIO)}"
            )
            print(f"    {'':<12}cycles/s interlock / baseline = {at_least(rate, A_RATE_RATIO)}")
        else:
            print(
                f"    {'':<12}server CPU ratio {cpu:.2f}, cycles/s ratio {rate:.2f} "
                "(no target for one conversation)"
            )
    print("    client = the load generator's own CPU (aiohttp + SSE parsing), not in 'server'")
    print(LINE)


def print_growth(growth: dict[str, Any]) -> None:
    print("(b) one conversation, every turn with one approval; medians of the 5 turns ending at k")
    print("    write = DBAPI COMMIT + INSERT/UPDATE/DELETE execution; CPU = the writing thread's;")
    print("    turn CPU = this process (server in process + client) for the whole turn")
    for system, name in (
        ("interlock", "interlock (SQLAlchemy, WAL; server in this process)"),
        ("langgraph", "langgraph SqliteSaver (checkpoint database)"),
    ):
        g = growth[system]
        runs = g.get("runs", 1)
        print(
            f"    {name}" + (f"; {runs} runs, each figure the median over all" if runs > 1 else "")
        )
        print(
            f"      {'turn':>5}{'WAL bytes':>11}{'main +B':>10}{'commits':>8}{'writes':>7}"
            f"{'write ms':>9}{'commit':>8}{'wr CPU':>8}{'SELECT':>8}{'turn ms':>9}{'turn CPU':>9}"
        )
        rows = [(f"{turn:>5}", row) for turn, row in g["points"].items()]
        if g.get("paired_point"):
            rows.insert(1, (f"{str(g['first']) + '*':>5}", g["paired_point"]))
        for turn, row in rows:
            print(
                f"      {turn}{row['wal_bytes']:>11,.0f}{row['main_growth']:>10,.0f}"
                f"{row['commits']:>8.0f}{row['writes']:>7.0f}{row['db_write_ms']:>9.2f}"
                f"{row['commit_ms']:>8.2f}{row['db_write_cpu_ms']:>8.2f}{row['read_ms']:>8.2f}"
                f"{row['wall_ms']:>9.1f}{row['cpu_ms']:>9.1f}"
            )
        if g.get("paired_point"):
            print(
                f"      {g['first']}* = a new conversation on a new database, its turns alternated"
                f" with turns {g['last'] - g['first'] + 1}-{g['last']} above (paired)"
            )
        r = g["ratios"]
        first, last = g["first"], g["last"]
        target = system == "interlock"

        def show(
            label: str, column: str, limit: float, r: dict[str, Any] = r, target: bool = target
        ) -> str:
            window, trend = r[column]["window"], r[column]["trend"]
            paired = r[column].get("paired")
            value = window if paired is None else paired
            text = f"{label} {value:.2f} ("
            text += (
                f"trend {trend:.2f})"
                if paired is None
                else f"window {window:.2f}, trend {trend:.2f})"
            )
            if target:
                text += f" target ≤ {limit:g} {verdict(value <= limit)}"
            return text

        print(
            f"      turn {last}/turn {first}: "
            + "; ".join(
                [
                    show("turn CPU", "cpu_ms", B_CPU_RATIO),
                    show("bytes", "wal_bytes", B_BYTES_RATIO),
                    show("write time", "db_write_ms", B_TIME_RATIO),
                ]
            )
        )
        also = (
            f"{c} {r[k].get('paired', r[k]['window']):.2f}"
            for c, k in (
                ("commit", "commit_ms"),
                ("write CPU", "db_write_cpu_ms"),
                ("turn wall", "wall_ms"),
            )
        )
        print("        also: " + "; ".join(also))
    print(LINE)


def _load_line(s: dict[str, Any]) -> str:
    return (
        f"{s['active']:>3} active + {s['idle']:>3} idle streams, {s['servers']} worker(s): "
        f"{s['cycles']} cycles in {s['seconds']:g} s = {s['per_s']:.1f} cycles/s; errors "
        f"{s['errors']}; server CPU {s['server_cpu_ms_per_cycle']:.1f} ms/cycle; load generator "
        f"CPU {s['client_cpu_s']:.1f} s ({s['client_cpu_s'] / s['seconds'] * 100:.0f}% of a core)"
    )


def _shares_line(s: dict[str, Any]) -> str | None:
    shares = s.get("cpu_shares")
    if not shares or not shares["seconds"]:
        return None

    def cores(key: str) -> str:
        return f"{shares[key] / shares['seconds']:.2f}"

    cycles = s["cycles"] or float("nan")
    postgres = shares["postgres_s"] > 0  # else SQLite
    return (
        f"  cores used: servers {cores('servers_s')}, "
        + (f"PostgreSQL {cores('postgres_s')}, " if postgres else "")
        + f"load generator {cores('generator_s')}, others {cores('others_s')} (machine "
        f"{cores('machine_s')} of {os.cpu_count()}); per cycle: "
        + (f"PostgreSQL {shares['postgres_s'] / cycles * 1e3:.1f} ms, " if postgres else "")
        + f"load generator {shares['generator_s'] / cycles * 1e3:.1f} ms"
    )


def print_one_worker(c: dict[str, Any]) -> None:
    one, many = c["single"], c["many"]
    print("(c) one worker: idle event streams + conversations cycling at once (SQLite)")
    if one.get("idle_window_s"):
        print(
            f"    {one['idle']} idle streams, nothing else, {one['idle_window_s']:.0f} s: server "
            f"{one['idle_server_cores']:.3f} cores (keep-alive pings, timers)"
        )
    for s in (one, many):
        print(f"    {_load_line(s)}")
        if shares := _shares_line(s):
            print(f"    {shares}")
    errors = many["errors"] + one["errors"] + many["idle_closed"] + one["idle_closed"]
    print(
        f"    {zero(errors, 'errors (cycles + idle streams closed)')}; events checked on "
        f"{many['delivery']['conversations']} streams: ok={many['delivery']['ok']}"
    )
    if many["error_samples"]:
        print(f"      first errors: {many['error_samples'][:2]}")
    print(
        f"    decision POST p95 {at_most(many['post_p95_ms'], C_POST_P95_MS, '.1f', ' ms')} "
        f"(p50 {many['post_p50_ms']:.1f})"
    )
    print(
        f"    decision → resumed run's first event (run.started) p95 "
        f"{at_most(many['resume_p95_ms'], C_RESUME_P95_MS, '.1f', ' ms')} "
        f"(p50 {many['resume_p50_ms']:.1f}; first event of any kind p95 "
        f"{many['first_event_p95_ms']:.1f})"
    )
    print(
        f"    throughput 50 active / 1 active = {at_least(c['throughput_ratio'], C_THROUGHPUT_RATIO)}"
    )
    print(LINE)


def print_two_workers(d: dict[str, Any]) -> None:
    print("(d) two workers on PostgreSQL vs one, same load generator")
    if "unavailable" in d:
        print(f"    not available: {d['unavailable']}")
        print(LINE)
        return
    one, two = d["workers_1"], d["workers_2"]
    for s in (one, two):
        print(f"    {_load_line(s)}")
        if shares := _shares_line(s):
            print(f"    {shares}")
    print(f"    cycles/s two workers / one = {at_least(d['ratio'], D_RATIO)}")
    dl = two["delivery"]
    print(
        f"    every event delivered across workers: {dl['conversations']} streams, "
        f"{dl['events']} events, missing {dl['missing']}, duplicated {dl['duplicates']}, "
        f"out of order {dl['out_of_order']}, errors {two['errors']} — {verdict(dl['ok'] and not two['errors'])}"
    )
    print(
        "    decision → event on a stream held by the other worker p95 "
        f"{at_most(two['first_event_p95_ms'], D_CROSS_P95_MS, '.1f', ' ms')} "
        f"(p50 {two['first_event_p50_ms']:.1f}; decision POST p95 {two['post_p95_ms']:.1f}; "
        f"event minus POST answer p50 {two['cross_p50_ms']:.1f}, p95 {two['cross_p95_ms']:.1f})"
    )
    print(LINE)


def print_failover(e: dict[str, Any], lease_s: float) -> None:
    print(f"(e) kill -9 of one of two workers under load (PostgreSQL, run lease {lease_s:g} s)")
    if "unavailable" in e:
        print(f"    not available: {e['unavailable']}")
        print(LINE)
        return
    print(
        f"    {e['conversations']} conversations; cycles before the kill {e['cycles_before_kill']}, "
        f"after {e['cycles_after_kill']}; run endings {e['outcomes']}; errors {e['errors']}"
    )
    print(
        f"    {zero(e['lost_messages'], 'lost messages')} (of {e['accepted_messages']} accepted); "
        f"{zero(e['duplicate_tool_runs'], 'duplicate tool runs')}; "
        f"{zero(e['stuck_runs'], 'runs left running')}"
    )
    dl = e["delivery"]
    print(
        f"    streams (reconnected with Last-Event-ID): {dl['events']} events, missing "
        f"{dl['missing']}, duplicated {dl['duplicates']} — {verdict(dl['ok'])}"
    )
    taken = e["takeover_s"]
    worst = max(taken) if taken else float("nan")
    ok = e["not_taken_over"] == 0 and (not taken or worst <= lease_s)
    print(
        f"    runs on the killed worker {e['runs_on_killed']}: continued on the other after "
        f"{', '.join(f'{t:.2f}' for t in sorted(taken)) or '-'} s; not continued "
        f"{e['not_taken_over']}; target: all within {lease_s:g} s {verdict(ok)}"
    )
    print(LINE)


def print_paused(f: dict[str, Any]) -> None:
    print("(f) paused conversations (one worker, SQLite)")
    print(
        f"    {f['paused']} paused: RSS {f['rss_before_mb']:.1f} → {f['rss_after_mb']:.1f} MB, "
        f"delta {at_most(f['rss_delta_mb'], F_RSS_DELTA_MB, '.1f', ' MB')}"
    )
    print(
        f"    restart: spawn → first /api/health answer {f['health_s']:.2f} s; spawn → first "
        f"answer of a resumed conversation {at_most(f['first_answer_s'], F_FIRST_ANSWER_S, '.2f', ' s')}"
    )
    if "first_answer_cpu_s" in f:
        print(
            f"    the restarted server's CPU time at that answer {f['first_answer_cpu_s']:.2f} s "
            f"(load average {f['restart_load']:.2f} when spawned: the rest is waiting for a core)"
        )
    print(LINE)


PARTS = (
    ("cycles", "(a)", lambda r: print_cycles(r["cycles"])),
    ("growth", "(b)", lambda r: print_growth(r["growth"])),
    ("one_worker", "(c)", lambda r: print_one_worker(r["one_worker"])),
    ("two_workers", "(d)", lambda r: print_two_workers(r["two_workers"])),
    ("failover", "(e)", lambda r: print_failover(r["failover"], r["lease_s"])),
    ("paused", "(f)", lambda r: print_paused(r["paused"])),
)


def print_report(results: dict[str, Any]) -> None:
    print_header(results)
    for key, label, show in PARTS:
        if key not in results:
            continue
        if "failed" in results[key]:
            print(f"{label} FAILED: {results[key]['failed']}")
            print(LINE)
            continue
        show(results)
