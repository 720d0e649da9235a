"""Start and kill the test MCP server (:mod:`support.mcp_remote_server`) on loopback."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
MODULE = "support.mcp_remote_server"
"""Run with ``-m`` from the tests folder: run as a script, its folder would come first on
``sys.path``, where ``support/mcp.py`` would hide the ``mcp`` package."""
HOSTILE = "support.mcp_hostile_server"
START_TIMEOUT_S = 30.0


@dataclass
class RemoteMcp:
    """The test MCP server's process on ``port`` (restartable on the same port)."""

    port: int
    log_path: Path
    token_file: Path | None = None
    env: dict[str, str] | None = None
    hostile: str | None = None
    """A mode of :mod:`support.mcp_hostile_server` to run instead of the well-behaved server."""
    process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    async def start(self) -> None:
        """Start it and wait (bounded) until its port accepts connections."""
        args = [sys.executable, "-m", MODULE, "http", str(self.port)]
        if self.hostile is not None:
            args = [sys.executable, "-m", HOSTILE, self.hostile, str(self.port)]
        if self.token_file is not None:
            args.append(str(self.token_file))
        with self.log_path.open("ab") as log:
            self.process = await asyncio.to_thread(
                subprocess.Popen,
                args,
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**_env(), **(self.env or {})},
            )
        async with asyncio.timeout(START_TIMEOUT_S):
            while True:
                if self.process.poll() is not None:
                    raise RuntimeError(f"MCP server exited:\n{self.log_path.read_text()}")
                try:
                    _reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                    writer.close()
                    return
                except OSError:
                    await asyncio.sleep(0.05)

    def kill(self) -> None:
        """SIGKILL, as a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(15)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _env() -> dict[str, str]:
    paths = [str(TESTS), *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def stdio_command() -> tuple[list[str], dict[str, str]]:
    """The command (and environment) that run the test server over stdio."""
    return [sys.executable, "-m", MODULE, "stdio"], {"PYTHONPATH": _env()["PYTHONPATH"]}
