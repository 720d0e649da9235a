"""Per-thread server CPU and thread switches per HITL cycle, 1 conversation vs K at once.

    python bench/thread_split.py [--conversations 50] [--seconds 20] [--rounds 2]

What (c) measures as one figure per load, split by the server's threads: a server process
(``bench/server.py``, its threads named in ``/proc``) on a fresh SQLite database; 1
conversation, then K, cycle in a closed loop on their own streams (the (c) cycle: message,
``run.paused``, approve, ``run.completed``) after one warm-up cycle each. Over the window,
from ``/proc/<pid>/task/*``: each thread group's CPU (user + system) per cycle and its
voluntary context switches per cycle (a thread blocking: on a queue, a socket, or to take
the GIL back). The two loads alternate in rounds, each on a new server, so background load
hits both alike. Counted: cycles ending in the window (with K in flight the window should
hold several hundred). Not part of ``make bench``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import tempfile
import time
from pathlib import Path

from client import hitl_cycle
from common import loop_factory
from load_client import LoadClient
from server import THREAD_NAMES_ENV, prepare_database, server_process

Sample = dict[str, tuple[float, int]]
"""Thread group -> (CPU seconds, voluntary context switches)."""


def sample(pid: int) -> Sample:
    """Each thread group's CPU and voluntary switches so far (pool threads grouped by name)."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[str, tuple[float, int]] = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            stat = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
            status = Path(f"/proc/{pid}/task/{tid}/status").read_text()
        except OSError:  # the thread ended
            continue
        name = re.sub(r"_\d+$", "", stat[stat.index("(") + 1 : stat.rindex(")")])
        fields = stat.rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / tick
        switches = int(re.search(r"^voluntary_ctxt_switches:\s*(\d+)", status, re.M)[1])  # type: ignore[index]
        old_cpu, old_switches = out.get(name, (0.0, 0))
        out[name] = (old_cpu + cpu, old_switches + switches)
    return out


async def drive(url: str, pid: int, conversations: int, seconds: float) -> tuple[int, Sample]:
    """Cycle ``conversations`` at once; return the cycles ending in the window and the
    server's per-thread-group change over it."""
    client = LoadClient(url)
    warm = asyncio.Event()
    warmed = 0
    ends_at = float("inf")
    counted = 0

    async def conversation(i: int) -> None:
        nonlocal warmed, counted
        conversation_id = await client.new_conversation()
        async with client.events(conversation_id) as stream:
            await hitl_cycle(client, stream, conversation_id, 0)
            warmed += 1
            if warmed == conversations:
                warm.set()
            await warm.wait()
            n = 1
            while time.monotonic() < ends_at:
                await hitl_cycle(client, stream, conversation_id, n)
                n += 1
                counted += time.monotonic() < ends_at

    async def window() -> Sample:
        nonlocal ends_at
        await warm.wait()
        before = sample(pid)
        ends_at = time.monotonic() + seconds
        await asyncio.sleep(seconds)
        after = sample(pid)
        return {
            name: (cpu - before.get(name, (0.0, 0))[0], switches - before.get(name, (0.0, 0))[1])
            for name, (cpu, switches) in after.items()
        }

    try:
        timing = asyncio.ensure_future(window())
        await asyncio.gather(*(conversation(i) for i in range(conversations)))
        return counted, await timing
    finally:
        await client.aclose()


def measure(conversations: int, seconds: float) -> str:
    """One server, one load: a line of per-cycle figures."""
    with tempfile.TemporaryDirectory(prefix="interlock-split-") as tmp:
        url = prepare_database(Path(tmp))[1]
        with server_process(url, env={THREAD_NAMES_ENV: "1"}) as handle:
            with asyncio.Runner(loop_factory=loop_factory()) as runner:
                cycles, change = runner.run(drive(handle.url, handle.pid, conversations, seconds))
    cycles = max(cycles, 1)
    cpu = sum(c for c, _ in change.values())
    switches = sum(s for _, s in change.values())
    groups = "  ".join(
        f"{name} {c / cycles * 1000:.1f} ms/{s / cycles:.0f}"
        for name, (c, s) in sorted(change.items())
        if c > 0 or s > 0
    )
    return (
        f"{conversations:3d} at once: {cycles} cycles, {cycles / seconds:.1f}/s, "
        f"server {cpu / cycles * 1000:.1f} ms CPU and {switches / cycles:.0f} switches per "
        f"cycle ({cpu / seconds:.2f} cores), load {os.getloadavg()[0]:.1f}\n    {groups}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--conversations", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    print("per thread group: CPU per cycle / voluntary switches per cycle")
    for _ in range(args.rounds):
        for conversations in (1, args.conversations):
            print(measure(conversations, args.seconds), flush=True)


if __name__ == "__main__":
    main()
