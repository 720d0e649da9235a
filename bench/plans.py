"""The sizes of a benchmark run (``bench/run.py``): the full one and ``--quick``."""

from __future__ import annotations

from dataclasses import dataclass

LEASE_S = 5.0
"""``INTERLOCK_RUN_LEASE_S`` for (e): shorter than the default 10 s to keep the run short."""


@dataclass(frozen=True)
class Plan:
    """How much of each part a run does. Counts, and durations in seconds (``_s``).

    (a) ``rounds`` of ``cycles_per_round`` cycles; (b) ``turns`` turns, ``growth_runs`` times,
    the baseline ``baseline_turns``; (c) ``idle_streams`` idle streams (the servers' CPU read
    over ``idle_window_s`` with only them open), 1 conversation cycling for ``single_s``, then
    ``active`` for ``load_s``; (d) ``workers_active`` conversations for ``workers_s`` on each
    setup (a fifth of the idle streams);
    (e) ``failover_conversations`` cycling, a worker killed after ``before_kill_s``, watched
    for ``after_kill_s`` more; (f) ``paused`` paused conversations.
    """

    rounds: int
    cycles_per_round: int
    turns: int
    growth_runs: int
    baseline_turns: int
    idle_streams: int
    active: int
    load_s: float
    single_s: float
    idle_window_s: float
    workers_active: int
    workers_s: float
    failover_conversations: int
    before_kill_s: float
    after_kill_s: float
    paused: int


FULL = Plan(
    rounds=4,
    cycles_per_round=50,
    turns=200,
    growth_runs=3,
    baseline_turns=200,
    idle_streams=500,
    active=50,
    load_s=60.0,
    single_s=20.0,
    idle_window_s=10.0,
    workers_active=50,
    workers_s=30.0,
    failover_conversations=10,
    before_kill_s=6.0,
    after_kill_s=2 * LEASE_S + 5.0,
    paused=1000,
)
QUICK = Plan(
    rounds=2,
    cycles_per_round=20,
    turns=50,
    growth_runs=3,
    baseline_turns=50,
    idle_streams=500,
    active=50,
    load_s=10.0,
    single_s=5.0,
    idle_window_s=3.0,
    workers_active=50,
    workers_s=10.0,
    failover_conversations=10,
    before_kill_s=3.0,
    after_kill_s=LEASE_S + 3.0,
    paused=200,
)
