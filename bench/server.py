"""Interlock servers for the benchmark: a separate process, or one in the caller's loop.

Run as a script, this module is the server process::

    python bench/server.py --database-url sqlite:////tmp/x/bench.db --port 8123 [--profile out.prof]

It builds the app the way ``interlock serve`` does (``Services.build`` + ``create_app``,
offline model, uvicorn with ``loop="auto"``/``http="auto"`` i.e. uvloop + httptools), but
with access logs off (``log_level="warning"``) so the terminal stays quiet.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: main() starts like `interlock serve` (see there)
    from interlock.api.services import Services
    from interlock.settings import Settings

START_TIMEOUT_S = 30.0
HOST = "127.0.0.1"


def bench_settings(
    database_url: str,
    port: int | None = None,
    *,
    first_token_delay_s: float = 0.0,
    token_delay_s: float = 0.0,
) -> Settings:
    """Settings for a benchmark server: offline model without delays, loopback, no users.

    Every field that matters is given explicitly so a ``.env`` file cannot change the run;
    the rest (e.g. ``INTERLOCK_RUN_LEASE_S``) comes from the environment as usual. ``port``
    None: a server in this process, whose uvicorn listens on a free port of its own (the
    setting, 1 to 65535, is then not used).
    """
    from interlock.settings import Settings

    return Settings(
        database_url=database_url,
        model=None,
        host=HOST,
        **({} if port is None else {"port": port}),
        offline_token_delay_s=token_delay_s,
        offline_first_token_delay_s=first_token_delay_s,
        skills_path=[],
    )


def prepare_database(directory: Path, name: str = "interlock.db") -> tuple[Path, str]:
    """Create and migrate a SQLite file database in ``directory``; return its path and URL."""
    from interlock.storage import migrate

    path = directory / name
    url = f"sqlite:///{path}"
    migrate.upgrade(url)
    return path, url


POSTGRES_ADMIN_URL = os.environ.get(
    "INTERLOCK_BENCH_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
"""A PostgreSQL database the benchmark may connect to in order to create and drop its own."""


def postgres_problem() -> str | None:
    """Return why PostgreSQL cannot be used (``None`` when it can)."""
    try:
        import psycopg

        with psycopg.connect(POSTGRES_ADMIN_URL, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:  # any failure means: not available
        return f"PostgreSQL not reachable at {POSTGRES_ADMIN_URL} ({type(exc).__name__})"
    return None


@contextmanager
def postgres_database(prefix: str = "interlock_bench") -> Iterator[str]:
    """Create a migrated PostgreSQL database; yield its SQLAlchemy URL; drop it on exit."""
    import psycopg

    from interlock.storage import migrate

    name = f"{prefix}_{os.getpid()}_{int(time.time() * 1000) % 10**9}"
    with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = POSTGRES_ADMIN_URL.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://")
    url = f"{base}/{name}"
    try:
        migrate.upgrade(url)
        yield url
    finally:
        with psycopg.connect(POSTGRES_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class ServerHandle:
    """A server process: its base URL and process id."""

    url: str
    pid: int


class ServerProcess:
    """One Interlock server in a child process (``python bench/server.py ...``).

    Args:
        database_url: The database it serves.
        profile: Write cProfile stats here on a clean stop.
        first_token_delay_s: Offline model's pause before its first token (longer runs).
        env: Extra environment variables (e.g. ``INTERLOCK_RUN_LEASE_S``).
    """

    def __init__(
        self,
        database_url: str,
        *,
        profile: Path | None = None,
        first_token_delay_s: float = 0.0,
        env: dict[str, str] | None = None,
    ) -> None:
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.command = [sys.executable, str(Path(__file__).resolve())]
        self.command += ["--database-url", database_url, "--port", str(self.port)]
        self.command += ["--first-token-delay-s", str(first_token_delay_s)]
        if profile is not None:
            self.command += ["--profile", str(profile)]
        # Bytecode as on an installed server (pip compiles it; a start writes what is missing):
        # with PYTHONDONTWRITEBYTECODE, which some sandboxes set, every start compiled
        # Interlock's 26,000 lines anew, a tenth of a second or more of (f)'s restart.
        inherited = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env = {**inherited, "PYTHONUNBUFFERED": "1", **(env or {})}
        self.process: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0

    @property
    def handle(self) -> ServerHandle:
        assert self.process is not None
        return ServerHandle(url=self.url, pid=self.process.pid)

    def start(self, *, wait: bool = True) -> ServerHandle:
        """Spawn the process (``started_at`` is ``perf_counter`` just before); wait for health."""
        self.started_at = time.perf_counter()
        self.process = subprocess.Popen(self.command, env=self.env)
        if wait:
            _wait_healthy(self.process, self.url)
        return self.handle

    def stop(self) -> None:
        """SIGINT (a clean shutdown), then SIGKILL if it does not end in time."""
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def kill(self) -> None:
        """``kill -9``: no shutdown code runs."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@contextmanager
def server_process(
    database_url: str,
    *,
    profile: Path | None = None,
    first_token_delay_s: float = 0.0,
    env: dict[str, str] | None = None,
) -> Iterator[ServerHandle]:
    """Serve Interlock in a child process; yield its URL and pid; stop it (SIGINT) on exit."""
    server = ServerProcess(
        database_url, profile=profile, first_token_delay_s=first_token_delay_s, env=env
    )
    try:
        yield server.start()
    finally:
        server.stop()


def _wait_healthy(process: subprocess.Popen[bytes], url: str) -> None:
    # httpx is imported here, by the load generator: the server process (main()) must not
    # import it, as `interlock serve` does not (Interlock loads it with the first HTTP tool).
    import httpx

    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server process exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/api/health", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.02)
    raise RuntimeError("the server process did not become healthy in time")


def rss_bytes(pid: int) -> int:
    """Resident set size of process ``pid`` in bytes (``VmRSS`` in ``/proc/<pid>/status``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


@dataclass
class InProcessServer:
    url: str
    services: Services


@asynccontextmanager
async def inprocess_server(settings: Settings) -> AsyncIterator[InProcessServer]:
    """Serve Interlock with uvicorn in the running loop (so its engine can be instrumented)."""
    import uvicorn

    from interlock.api.app import create_app
    from interlock.api.services import Services

    services = Services.build(settings)
    app = create_app(settings, services)
    config = uvicorn.Config(app, host=HOST, port=0, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        async with asyncio.timeout(START_TIMEOUT_S):
            while not server.started:
                if task.done():
                    task.result()
                await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield InProcessServer(url=f"http://{HOST}:{port}", services=services)
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, START_TIMEOUT_S)
        services.db.dispose()


THREAD_NAMES_ENV = "INTERLOCK_BENCH_THREAD_NAMES"
"""Set to 1 in a server process's environment: its threads carry their Python names in
``/proc/<pid>/task/*/comm`` (first 15 bytes), for ``bench/thread_split.py``."""


def name_os_threads() -> None:
    """Give each thread started from now on its Python name as its OS name (Linux only).

    The server's own code is unchanged: ``threading.Thread`` runs a wrapper that calls
    ``prctl(PR_SET_NAME)`` before the thread's target. The main thread (the event loop's)
    becomes ``loop``.
    """
    import ctypes
    import threading

    libc = ctypes.CDLL(None)
    pr_set_name = 15

    def set_name(name: str) -> None:
        libc.prctl(pr_set_name, name[:15].encode(), 0, 0, 0)

    inner = threading.Thread._bootstrap_inner  # type: ignore[attr-defined]

    def named_inner(thread: threading.Thread) -> None:
        set_name(thread.name.removeprefix("interlock-"))
        inner(thread)

    threading.Thread._bootstrap_inner = named_inner  # type: ignore[attr-defined]
    set_name("loop")


def main() -> None:
    if os.environ.get(THREAD_NAMES_ENV) == "1":
        name_os_threads()
    # As `interlock serve` starts (interlock.cli.serve): no garbage collection while importing
    # and starting; the app's lifespan freezes what start-up leaves and turns it back on.
    gc.disable()
    import uvicorn

    from interlock.api.app import create_app

    parser = argparse.ArgumentParser(description="Interlock server for bench/run.py")
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--profile", type=Path, default=None, help="write cProfile stats here")
    parser.add_argument("--first-token-delay-s", type=float, default=0.0)
    args = parser.parse_args()
    settings = bench_settings(
        args.database_url, args.port, first_token_delay_s=args.first_token_delay_s
    )
    app = create_app(settings)  # exactly as `interlock serve` builds it
    config = uvicorn.Config(app, host=HOST, port=args.port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    # The main thread's CPU time, not wall time: on a busy machine preemption (and the
    # database threads' work) would otherwise be charged to whatever ran.
    profiler = cProfile.Profile(time.thread_time) if args.profile is not None else None
    if profiler is not None:
        profiler.enable()
    try:
        server.run()
    except KeyboardInterrupt:  # uvicorn re-raises the SIGINT that stopped it
        pass
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)


if __name__ == "__main__":
    main()
