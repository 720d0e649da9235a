"""Real ``interlock serve`` processes on loopback, for the several-workers tests.

Each process gets its own free port and the test's database URL; it is stopped with SIGTERM
(or killed with SIGKILL, as a crash) and every wait is bounded.
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

START_TIMEOUT_S = 90.0  # a loaded 2-core machine takes ~25 s to start two workers
STOP_TIMEOUT_S = 15.0
INTERLOCK = Path(sys.executable).with_name("interlock")


def free_port() -> int:
    """Return a TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class ServerProcess:
    """One ``interlock serve`` process: its URL, an HTTP client bound to it, its log file."""

    url: str
    process: subprocess.Popen[bytes]
    log_path: Path
    client: httpx.AsyncClient = field(init=False)

    def __post_init__(self) -> None:
        self.client = httpx.AsyncClient(base_url=self.url, timeout=30.0)

    @property
    def pid(self) -> int:
        return self.process.pid

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    async def wait_ready(self) -> None:
        """Wait (bounded) until ``/api/health`` answers."""
        async with asyncio.timeout(START_TIMEOUT_S):
            while True:
                if self.process.poll() is not None:
                    raise RuntimeError(f"server exited {self.process.returncode}:\n{self.log()}")
                try:
                    if (await self.client.get("/api/health")).status_code == 200:
                        return
                except httpx.TransportError:
                    pass
                await asyncio.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL: the process dies at once, nothing of its shutdown runs."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(STOP_TIMEOUT_S)

    async def stop(self) -> None:
        """SIGTERM, then SIGKILL past ``STOP_TIMEOUT_S``; closes the client."""
        await self.client.aclose()
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.to_thread(self.process.wait, STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.kill()


def start_server(
    database_url: str, log_dir: Path, *args: str, **env: str
) -> tuple[ServerProcess, int]:
    """Start ``interlock serve`` (``args`` added) on a free port; returns it and the port.

    ``env`` adds ``INTERLOCK_*`` variables (names without the prefix, lower case).
    """
    port = free_port()
    environment = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("INTERLOCK_") or k.startswith("INTERLOCK_TEST_")
    }
    environment.update(
        {
            "INTERLOCK_DATABASE_URL": database_url,
            "INTERLOCK_CLIENT_DIST": str(log_dir / "no-client"),
            **{f"INTERLOCK_{k.upper()}": v for k, v in env.items()},
        }
    )
    log_path = log_dir / f"server-{port}.log"
    with log_path.open("wb") as log_file:
        process = subprocess.Popen(
            [str(INTERLOCK), "serve", "--host", "127.0.0.1", "--port", str(port), *args],
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=environment,
            cwd=log_dir,
        )
    return ServerProcess(f"http://127.0.0.1:{port}", process, log_path), port


@asynccontextmanager
async def servers(
    database_url: str, log_dir: Path, count: int, **env: str
) -> AsyncIterator[list[ServerProcess]]:
    """Start ``count`` server processes on one database; stop them all afterwards."""
    started = [start_server(database_url, log_dir, **env)[0] for _ in range(count)]
    try:
        await asyncio.gather(*(s.wait_ready() for s in started))
        yield started
    finally:
        await asyncio.gather(*(s.stop() for s in started), return_exceptions=True)
