"""Print the README's benchmark table (Markdown) from a ``bench/run.py --json`` file.

python bench/table.py results.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import report as r


def _mark(ok: bool) -> str:
    return "met" if ok else "**missed**"


def rows(results: dict[str, Any]) -> list[tuple[str, str, str]]:
    """``(part, figure, target and verdict)`` for every part in ``results``."""
    out: list[tuple[str, str, str]] = []
    for key, label, _show in r.PARTS:
        part = results.get(key)
        if part is None:
            continue
        if "failed" in part or "unavailable" in part:
            why = part.get("failed") or part.get("unavailable")
            out.append((label, f"not measured: {why}", "—"))
            continue
        out.extend(_ROWS[key](label, part, results))
    return out


def _a(label: str, a: dict[str, Any], _results: dict[str, Any]) -> list[tuple[str, str, str]]:
    fresh, same = a["fresh"], a["same"]
    il, lg = fresh["interlock"], fresh["langgraph"]
    return [
        (
            f"{label} server CPU per HITL cycle, fresh conversation",
            f"{il['server_cpu_ms']:.1f} ms vs {lg['cpu_ms']:.1f} ms for the in-process LangGraph "
            f"baseline: {fresh['server_cpu_ratio']:.2f}x",
            f"≤ 2.0x, {_mark(fresh['server_cpu_ratio'] <= r.A_SERVER_CPU_RATIO)}",
        ),
        (
            f"{label} cycles/s, fresh conversation",
            f"{il['per_s']:.1f} vs {lg['per_s']:.1f}: {fresh['ratio']:.2f}",
            f"≥ 0.6, {_mark(fresh['ratio'] >= r.A_RATE_RATIO)}",
        ),
        (
            f"{label} same, one conversation",
            f"server CPU {same['interlock']['server_cpu_ms']:.1f} vs "
            f"{same['langgraph']['cpu_ms']:.1f} ms ({same['server_cpu_ratio']:.2f}x); "
            f"{same['interlock']['per_s']:.1f} vs {same['langgraph']['per_s']:.1f} cycles/s",
            "—",
        ),
    ]


def _b(label: str, b: dict[str, Any], _results: dict[str, Any]) -> list[tuple[str, str, str]]:
    g = b["interlock"]
    first, last = g["first"], g["last"]
    ratios = g["ratios"]
    base = b["langgraph"]["ratios"]

    def row(name: str, column: str, limit: float) -> tuple[str, str, str]:
        value = ratios[column].get("paired", ratios[column]["window"])
        window = f"window {ratios[column]['window']:.2f}, " if "paired" in ratios[column] else ""
        return (
            f"{label} {name} per turn, turn {last} ÷ turn {first}",
            f"{value:.2f} ({window}trend {ratios[column]['trend']:.2f}; baseline "
            f"`SqliteSaver` {base[column]['window']:.2f})",
            f"≤ {limit:g}, {_mark(value <= limit)}",
        )

    return [
        row("whole-turn CPU", "cpu_ms", r.B_CPU_RATIO),
        row("bytes written", "wal_bytes", r.B_BYTES_RATIO),
        row("write time", "db_write_ms", r.B_TIME_RATIO),
        (
            f"{label} write CPU (the writing thread's) per turn, turn {last} ÷ turn {first}",
            f"{ratios['db_write_cpu_ms'].get('paired', ratios['db_write_cpu_ms']['window']):.2f}",
            "— (steadier than write time on a busy machine)",
        ),
    ]


def _c(label: str, c: dict[str, Any], _results: dict[str, Any]) -> list[tuple[str, str, str]]:
    one, many = c["single"], c["many"]
    errors = one["errors"] + many["errors"] + one["idle_closed"] + many["idle_closed"]
    return [
        (
            f"{label} one worker, {many['idle']} idle streams + {many['active']} cycling "
            f"{many['seconds']:g} s: errors",
            f"{errors} (events checked on {many['delivery']['conversations']} streams: "
            f"{'all once, in order' if many['delivery']['ok'] else 'NOT all delivered'})",
            f"0, {_mark(errors == 0 and many['delivery']['ok'])}",
        ),
        (
            f"{label} decision POST p95",
            f"{many['post_p95_ms']:.0f} ms (p50 {many['post_p50_ms']:.0f})",
            f"≤ 50 ms, {_mark(many['post_p95_ms'] <= r.C_POST_P95_MS)}",
        ),
        (
            f"{label} decision → resumed run's first event p95",
            f"{many['resume_p95_ms']:.0f} ms (p50 {many['resume_p50_ms']:.0f})",
            f"≤ 100 ms, {_mark(many['resume_p95_ms'] <= r.C_RESUME_P95_MS)}",
        ),
        (
            f"{label} throughput 50 active ÷ 1 active",
            f"{many['per_s']:.1f} ÷ {one['per_s']:.1f} = {c['throughput_ratio']:.2f} (server "
            f"{one['server_cpu_ms_per_cycle']:.0f} → {many['server_cpu_ms_per_cycle']:.0f} ms "
            f"CPU/cycle; load generator "
            f"{many['client_cpu_s'] / many['seconds'] * 100:.0f}% of a core"
            + (
                f"; the idle streams alone: {one['idle_server_cores']:.3f} cores"
                if one.get("idle_window_s")
                else ""
            )
            + ")",
            f"≥ 1.5, {_mark(c['throughput_ratio'] >= r.C_THROUGHPUT_RATIO)}",
        ),
    ]


def _d(label: str, d: dict[str, Any], _results: dict[str, Any]) -> list[tuple[str, str, str]]:
    one, two = d["workers_1"], d["workers_2"]
    dl = two["delivery"]
    return [
        (
            f"{label} two workers ÷ one on PostgreSQL, cycles/s",
            f"{two['per_s']:.1f} ÷ {one['per_s']:.1f} = {d['ratio']:.2f} (load generator "
            f"{two['client_cpu_s'] / two['seconds'] * 100:.0f}% of a core)",
            f"≥ 1.6, {_mark(d['ratio'] >= r.D_RATIO)}",
        ),
        (
            f"{label} every event delivered across workers",
            f"{dl['events']} events on {dl['conversations']} streams: missing {dl['missing']}, "
            f"duplicated {dl['duplicates']}, out of order {dl['out_of_order']}",
            f"all, {_mark(dl['ok'] and not two['errors'])}",
        ),
        (
            f"{label} decision → event on the other worker's stream p95",
            f"{two['first_event_p95_ms']:.0f} ms (p50 {two['first_event_p50_ms']:.0f})",
            f"≤ 50 ms, {_mark(two['first_event_p95_ms'] <= r.D_CROSS_P95_MS)}",
        ),
    ]


def _e(label: str, e: dict[str, Any], results: dict[str, Any]) -> list[tuple[str, str, str]]:
    lease = results["lease_s"]
    worst = e["takeover_max_s"]
    ok = e["not_taken_over"] == 0 and (not e["takeover_s"] or worst <= lease)
    return [
        (
            f"{label} kill -9 of one of two workers: lost messages, duplicate tool runs",
            f"{e['lost_messages']} of {e['accepted_messages']}, {e['duplicate_tool_runs']} "
            f"(runs left running {e['stuck_runs']}; streams "
            f"{'all events once' if e['delivery']['ok'] else 'NOT all events once'})",
            f"0 and 0, {_mark(not e['lost_messages'] and not e['duplicate_tool_runs'])}",
        ),
        (
            f"{label} its runs continue on the other worker",
            f"{e['runs_on_killed']} runs, slowest after {worst:.1f} s; not continued "
            f"{e['not_taken_over']}",
            f"within the lease ({lease:g} s), {_mark(ok)}",
        ),
    ]


def _f(label: str, f: dict[str, Any], _results: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [
        (
            f"{label} {f['paused']} paused conversations: RSS delta",
            f"{f['rss_delta_mb']:.1f} MB",
            f"≤ 20 MB, {_mark(f['rss_delta_mb'] <= r.F_RSS_DELTA_MB)}",
        ),
        (
            f"{label} restart to first answer",
            f"{f['first_answer_s']:.2f} s (health answered after {f['health_s']:.2f} s"
            + (
                f"; server CPU {f['first_answer_cpu_s']:.2f} s, load {f['restart_load']:.1f})"
                if "first_answer_cpu_s" in f
                else ")"
            ),
            f"≤ 1.5 s, {_mark(f['first_answer_s'] <= r.F_FIRST_ANSWER_S)}",
        ),
    ]


_ROWS = {
    "cycles": _a,
    "growth": _b,
    "one_worker": _c,
    "two_workers": _d,
    "failover": _e,
    "paused": _f,
}


def main() -> None:
    results = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    m = results["machine"]
    print(
        f"{results['plan_name'].capitalize()} run, commit {m['source']['commit']}, "
        f"{m['cores']} cores ({m['cpu']}), load average {results['loadavg_start'][0]} at the "
        f"start and {results['loadavg_end'][0]} at the end, {results['elapsed_s'] / 60:.0f} min:"
    )
    print()
    print("| part | figure | target |")
    print("|---|---|---|")
    for part, figure, target in rows(results):
        print(f"| {part} | {figure} | {target} |")


if __name__ == "__main__":
    main()
