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

import httpx
import uvicorn

from interlock.api.app import create_app
from interlock.api.services import Services
from interlock.settings import Settings
from interlock.storage import migrate

START_TIMEOUT_S = 30.0
HOST = "127.0.0.1"


def bench_settings(database_url: str, port: int = 0) -> Settings:
    """Settings for a benchmark server: offline model without delays, loopback, no users.

    Every field that matters is given explicitly so a ``.env`` file cannot change the run.
    """
    return Settings(
        database_url=database_url,
        model=None,
        host=HOST,
        port=port,
        offline_token_delay_s=0.0,
        offline_first_token_delay_s=0.0,
        skills_path=[],
    )


def prepare_database(directory: Path, name: str = "interlock.db") -> tuple[Path, str]:
    """Create and migrate a SQLite file database in ``directory``; return its path and URL."""
    path = directory / name
    url = f"sqlite:///{path}"
    migrate.upgrade(url)
    return path, url


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


@dataclass(frozen=True)
class ServerHandle:
    """A server process: its base URL and process id."""

    url: str
    pid: int


@contextmanager
def server_process(database_url: str, *, profile: Path | None = None) -> Iterator[ServerHandle]:
    """Serve Interlock in a child process; yield its URL and pid; stop it (SIGINT) on exit."""
    port = free_port()
    command = [sys.executable, str(Path(__file__).resolve()), "--database-url", database_url]
    command += ["--port", str(port)]
    if profile is not None:
        command += ["--profile", str(profile)]
    process = subprocess.Popen(command, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://{HOST}:{port}"
    try:
        _wait_healthy(process, url)
        yield ServerHandle(url=url, pid=process.pid)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=START_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_healthy(process: subprocess.Popen[bytes], url: str) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server process exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/api/health", timeout=1.0).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.05)
    raise RuntimeError("the server process did not become healthy in time")


@dataclass
class InProcessServer:
    url: str
    services: Services


@asynccontextmanager
async def inprocess_server(settings: Settings) -> AsyncIterator[InProcessServer]:
    """Serve Interlock with uvicorn in the running loop (so its engine can be instrumented)."""
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


def main() -> None:
    parser = argparse.ArgumentParser(description="Interlock server for bench/run.py")
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--profile", type=Path, default=None, help="write cProfile stats here")
    args = parser.parse_args()
    settings = bench_settings(args.database_url, args.port)
    app = create_app(settings)  # exactly as `interlock serve` builds it
    config = uvicorn.Config(app, host=HOST, port=args.port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    profiler = cProfile.Profile() if args.profile is not None else None
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
