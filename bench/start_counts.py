"""(f)'s restart in counts: modules imported and Python calls from process start to first answer.

    python bench/start_counts.py [--paused 20] [--top 25] [--out FILE]

Like (f) (``paused.py``): a SQLite server is left with ``--paused`` conversations paused on
an ASK call, stopped, and started again; a probe polls ``/api/health``, then opens one paused
conversation's stream, approves its call and waits for ``run.completed`` (the first answer).
The restart is done twice:

* profiled: every thread of the new process runs a ``cProfile`` from its first Python call
  (the main thread from before the server script's own imports); at the first answer the
  profiles are merged and the process's modules counted (``len(sys.modules)``). Prints the
  Python calls (all and primitive) and the functions with the most calls and cumulative
  calls;
* with ``-X importtime`` (no profiler): prints the modules with the largest cumulative import
  time, and the sum by top-level package (times are wall and move with the machine's load;
  the module counts do not).

The CPU time (user + system, every thread) of each restart at its first answer is printed too.
Not part of ``make bench``.
"""

from __future__ import annotations

import argparse
import cProfile
import itertools
import marshal
import os
import re
import runpy
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path


def serve() -> None:
    """The restarted server itself: profile every thread, then run ``bench/server.py``.

    Only the standard library is imported before the profiling starts (the benchmark's own
    modules, ``httpx`` among them, are imported by :func:`main`, not here).
    """
    profilers: list[cProfile.Profile] = []
    lock = threading.Lock()

    def events() -> cProfile.Profile:
        # The profiler's clock counts its own events (a call and a return each), so a
        # function's cumulative "time" is twice the calls made below it, itself included.
        return cProfile.Profile(itertools.count().__next__, 0.5)

    def hook(_frame: object, _event: str, _arg: object) -> None:
        profiler = events()
        with lock:
            profilers.append(profiler)
        profiler.enable()  # replaces this hook on this thread

    def dump(_signum: int, _frame: object) -> None:
        import pstats

        with lock:
            taken = list(profilers)
        merged = pstats.Stats(taken[0])
        for profiler in taken[1:]:
            merged.add(profiler)
        out = Path(os.environ[OUT_ENV])
        names = sorted(sys.modules)
        out.write_bytes(marshal.dumps({"modules": names, "stats": merged.stats}))  # type: ignore[attr-defined]

    if os.environ.get(OUT_ENV):
        signal.signal(signal.SIGUSR1, dump)
        threading.setprofile(hook)
        main_profiler = events()
        profilers.append(main_profiler)
        main_profiler.enable()
    sys.argv = [str(Path(__file__).with_name("server.py")), *sys.argv[2:]]
    sys.path[0] = str(Path(__file__).parent)
    runpy.run_path(sys.argv[0], run_name="__main__")


OUT_ENV = "INTERLOCK_BENCH_START_OUT"
IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


def restart(
    url: str, paused: tuple[str, str, int], env: dict[str, str], stderr: Path | None
) -> float:
    """Start the server again (through ``--serve``), reach the first answer; return its CPU s."""
    out = env.get(OUT_ENV)
    if out is not None:
        Path(out).unlink(missing_ok=True)
    from common import run_async
    from paused import _first_answer
    from server import ServerProcess

    server = ServerProcess(url, env=env)
    server.command[1:2] = [str(Path(__file__).resolve()), "--serve"]
    try:
        if stderr is None:
            server.start(wait=False)
        else:
            with stderr.open("wb") as err:
                server.started_at = time.perf_counter()
                server.process = subprocess.Popen(server.command, env=server.env, stderr=err)
        _, _, cpu_s = run_async(_first_answer(server, paused))
        if out is not None:
            assert server.process is not None
            server.process.send_signal(signal.SIGUSR1)
            deadline = time.monotonic() + 30
            while not Path(out).exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.2)  # the file is written in one call; let it finish
    finally:
        server.kill()
    return cpu_s


def show_profile(path: Path, top: int) -> None:
    data = marshal.loads(path.read_bytes())
    stats = data["stats"]
    total = sum(v[1] for v in stats.values())
    primitive = sum(v[0] for v in stats.values())
    python = sum(v[1] for k, v in stats.items() if k[0] != "~")
    names = data["modules"]
    print(f"modules imported at the first answer: {len(names)}")
    packages = Counter(name.split(".")[0] for name in names)
    print("  by package: " + ", ".join(f"{p} {n}" for p, n in packages.most_common(top)))
    print(f"Python calls, process start to first answer: {total:,} ({primitive:,} primitive;")
    print(f"  of functions written in Python: {python:,})")

    def name(key: tuple[str, int, str]) -> str:
        filename, line, function = key
        if filename == "~":
            return function
        short = filename.split("site-packages/")[-1].split("/server/")[-1]
        return f"{short}:{line}({function})"

    print("\nmost called (calls, own calls):")
    for key, value in sorted(stats.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"  {value[1]:>9,}  {name(key)}")
    # The profiles' clock counted events (see _events): cumulative "time" is the calls made
    # below a function, itself included (recursive ones counted at their outermost call).
    print("\nmost calls below (inclusive), Interlock's functions:")
    ours = [kv for kv in stats.items() if "interlock/" in kv[0][0]]
    for key, value in sorted(ours, key=lambda kv: -kv[1][3])[:top]:
        print(f"  {int(value[3]):>9,}  {name(key)}")


def show_importtime(path: Path, top: int) -> None:
    rows = []
    for line in path.read_text(errors="replace").splitlines():
        match = IMPORT_LINE.match(line)
        if match:
            rows.append(
                (int(match.group(1)), int(match.group(2)), len(match.group(3)), match.group(4))
            )
    by_package: Counter[str] = Counter()
    modules: Counter[str] = Counter()
    for own, _cum, _depth, module in rows:
        by_package[module.split(".")[0]] += own
        modules[module.split(".")[0]] += 1
    print(f"\n-X importtime: {len(rows)} modules, {sum(r[0] for r in rows) / 1e6:.2f} s in all")
    print("largest cumulative (s):")
    for own, cum, depth, module in sorted(rows, key=lambda r: -r[1])[:top]:
        print(f"  {cum / 1e6:6.3f}  {own / 1e6:6.3f} own  {'  ' * min(depth // 2, 8)}{module}")
    print("by top-level package (own time s, modules):")
    for package, own in by_package.most_common(top):
        print(f"  {own / 1e6:6.3f}  {modules[package]:4}  {package}")


def main() -> None:
    # The benchmark's modules are imported here, not at the top: the restarted server runs
    # this file too (``--serve``) and must not import them before its profiling starts.
    from common import run_async
    from paused import _fill
    from server import ServerProcess, prepare_database

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--paused", type=int, default=20)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--out", type=Path, default=None, help="keep the merged profile (marshal)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="interlock-start-") as tmp:
        directory = Path(tmp)
        _, url = prepare_database(directory)
        server = ServerProcess(url)
        try:
            handle = server.start()
            paused = run_async(_fill(handle.url, max(args.paused, 2)))
        finally:
            server.stop()
        profile = args.out or directory / "start.profile"
        # A first start writes any missing bytecode, as an installed server has it.
        restart(url, paused[-1], {}, None)
        cpu = restart(url, paused[0], {OUT_ENV: str(profile)}, None)
        show_profile(profile, args.top)
        print(f"(profiled restart's CPU at the first answer: {cpu:.2f} s)")
        err = directory / "importtime.txt"
        cpu = restart(url, paused[1], {"PYTHONPROFILEIMPORTTIME": "1"}, err)
        show_importtime(err, args.top)
        print(f"(importtime restart's CPU at the first answer: {cpu:.2f} s)")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        serve()
    else:
        main()
