"""cProfile of the server's every thread over fresh HITL cycles: Python calls and CPU per cycle.

    python bench/cycle_profile.py [--cycles 20] [--database-url URL] [--out FILE] [--top 40]
                                  [--no-profile]

Serves Interlock in this process on a thread of its own (its event loop), the load client on
the main thread (not profiled). After a few warm-up cycles each server thread (the loop's,
the database threads', any other) starts a ``cProfile.Profile(time.thread_time)`` at its next
Python call; the cycles are counted, the profiles merged. Prints the calls (primitive and
all) and the profiled CPU per cycle (thread CPU time, profiler overhead included, so larger
than without it; compare runs of this tool with each other), then the functions ranked by
own time and by cumulative time. ``--out`` writes the merged stats for ``pstats``/snakeviz.
``--no-profile`` installs no profiler on any thread and prints only the server's CPU per cycle
(this process's CPU time less the client thread's).
Not part of ``make bench``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from client import hitl_cycle
from common import loop_factory
from load_client import LoadClient
from server import bench_settings, inprocess_server, prepare_database

WARMUP = 5


class Profiles:
    """One profiler per server thread, started once :attr:`on` is set."""

    def __init__(self) -> None:
        self.on = False
        self.process_cpu = 0.0
        """This process's CPU time when the counted cycles began, in seconds."""
        self.client_cpu = 0.0
        """The main (client) thread's CPU time then."""
        self.profilers: list[cProfile.Profile] = []
        self._lock = threading.Lock()

    def hook(self, _frame: Any, _event: str, _arg: Any) -> None:
        if not self.on:
            return
        profiler = cProfile.Profile(time.thread_time)
        with self._lock:
            self.profilers.append(profiler)
        profiler.enable()  # replaces this hook on this thread

    def stats(self) -> pstats.Stats:
        with self._lock:
            profilers = list(self.profilers)
        merged = pstats.Stats(profilers[0])
        for profiler in profilers[1:]:
            merged.add(profiler)
        return merged


WAITS = (
    "{method 'get' of '_queue.SimpleQueue' objects}",
    "{method 'acquire' of '_thread.lock' objects}",
)


def waits(stats: Any) -> float:
    """Seconds the profiles charge to blocking waits (a thread's profiler starts inside one)."""
    return sum(value[2] for key, value in stats.stats.items() if key[0] == "~" and key[2] in WAITS)


def serve(settings: Any, ready: Any, hook: Any) -> None:
    """The server thread: uvicorn on its own loop until the event it hands over is set.

    ``hook`` (a :meth:`Profiles.hook`, or None for no profiling) is this thread's profile
    function: :func:`threading.setprofile` reaches only the threads started after it.
    """
    import sys

    if hook is not None:
        sys.setprofile(hook)

    async def main() -> None:
        async with inprocess_server(settings) as server:
            stop = asyncio.Event()
            ready.set_result((server, asyncio.get_running_loop(), stop))
            await stop.wait()

    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        runner.run(main())


async def cycles(server: Any, loop: asyncio.AbstractEventLoop, profiles: Profiles, n: int) -> None:
    client = LoadClient(server.url)
    try:
        for i in range(WARMUP + n):
            if i == WARMUP:
                profiles.on = True
                profiles.process_cpu = time.process_time()
                profiles.client_cpu = time.thread_time()
            conversation_id = await client.new_conversation()
            async with client.events(conversation_id) as stream:
                await hitl_cycle(client, stream, conversation_id, i)
            idle = asyncio.run_coroutine_threadsafe(server.services.engine.wait_idle(), loop)
            await asyncio.wrap_future(idle)
    finally:
        await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cycles", type=int, default=20)
    parser.add_argument(
        "--database-url", default=None, help="a migrated database (default: SQLite)"
    )
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument(
        "--no-profile", action="store_true", help="only the server's CPU per cycle, unprofiled"
    )
    args = parser.parse_args()
    profiles = Profiles()
    hook = None if args.no_profile else profiles.hook
    if hook is not None:
        threading.setprofile(hook)  # the server's database and other threads started later
    from concurrent.futures import Future

    with tempfile.TemporaryDirectory(prefix="interlock-profile-") as tmp:
        url = args.database_url or prepare_database(Path(tmp))[1]
        ready: Future[Any] = Future()
        thread = threading.Thread(
            target=serve, args=(bench_settings(url), ready, hook), daemon=True
        )
        thread.start()
        server, loop, stop = ready.result(timeout=60)
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            runner.run(cycles(server, loop, profiles, args.cycles))
        server_cpu = (
            time.process_time() - profiles.process_cpu - (time.thread_time() - profiles.client_cpu)
        )
        loop.call_soon_threadsafe(stop.set)
        thread.join(30)
    n = args.cycles
    if args.no_profile:
        print(f"server CPU per fresh HITL cycle (mean of {n}): {server_cpu / n * 1000:.1f} ms")
        return
    stats = profiles.stats()
    raw: Any = stats
    print(
        f"per fresh HITL cycle (mean of {n}, {len(profiles.profilers)} threads): "
        f"calls {raw.total_calls / n:.0f} (primitive {raw.prim_calls / n:.0f}), "
        f"profiled CPU {raw.total_tt / n * 1000:.1f} ms, of which outside waits "
        f"{(raw.total_tt - waits(raw)) / n * 1000:.1f} ms"
    )
    if args.out is not None:
        stats.dump_stats(args.out)
    stats.sort_stats("tottime").print_stats(args.top)
    stats.sort_stats("cumulative").print_stats(args.top)


if __name__ == "__main__":
    main()
