"""A stdio MCP server's process, watched: how it ended and the last lines it wrote to stderr.

The ``mcp`` SDK starts the server's command (:func:`mcp.client.stdio.stdio_client`) but keeps
the process to itself, so a server that exits at once would only read as a closed connection
or a late answer. :class:`StdioWatch` gives the SDK a command wrapped in ``/bin/sh`` that runs
the server unchanged (same arguments, environment, stdin and stdout) and, when it ends, writes
its exit code to stderr after a marker only this session knows; stderr goes to a pipe read on
the event loop (each line logged at INFO on ``interlock.mcp_bridge.stdio``, the last
:data:`TAIL_LINES` kept). When the process ends while the session is open,
:attr:`StdioWatch.on_exit` is called, and :meth:`StdioWatch.sentence` says what happened:
``its process exited with code 3; its last lines on stderr: “fatal: no config”``.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import sys
from collections import deque
from collections.abc import Callable
from typing import TextIO

from interlock.mcp_bridge.names import visible

logger = logging.getLogger("interlock.mcp_bridge.stdio")

TAIL_LINES = 3
"""How many of the last non-empty stderr lines a sentence quotes."""
MAX_LINE_CHARS = 200
"""Longest stderr line quoted (longer ones are cut with ``…``)."""
MAX_BUFFER_BYTES = 8192
"""Longest unfinished stderr line kept while waiting for its end (the rest is dropped)."""
EOF_WAIT_S = 0.5
"""Longest wait, after the process has been stopped, for the last of its stderr."""

_WRAPPER = 'm=$1; shift; "$@"; c=$?; printf "\\n%s %d\\n" "$m" "$c" >&2; exit "$c"'
"""Runs ``"$@"`` (the server's command), then writes ``<marker> <exit code>`` to stderr and
exits with the same code. ``$0`` (``interlock-mcp``) prefixes the shell's own messages."""


class StdioWatch:
    """One try of a stdio server: its wrapped command, its stderr pipe and its exit code.

    Args:
        server: The server's configured name (for the log).

    Attributes:
        exit_code: The command's exit code once it has ended (128 + N when a signal N stopped
            it), else None.
        tail: Its last non-empty stderr lines, as shown to a person.
        on_exit: Called (on the event loop) when the exit code arrives.
    """

    def __init__(self, server: str) -> None:
        self.server = server
        self.exit_code: int | None = None
        self.tail: deque[str] = deque(maxlen=TAIL_LINES)
        self.on_exit: Callable[[], None] | None = None
        self._marker = f"interlock-exit-{secrets.token_hex(8)}"
        self._buffer = b""
        self._eof = asyncio.Event()
        self._writer: TextIO | None = None
        self._transport: asyncio.ReadTransport | None = None

    def command(self, command: list[str]) -> tuple[str, list[str]]:
        """Return ``(executable, args)`` that run ``command`` under the watch."""
        if sys.platform == "win32":  # pragma: no cover (no /bin/sh: no exit code)
            return command[0], list(command[1:])
        return "/bin/sh", ["-c", _WRAPPER, "interlock-mcp", self._marker, *command]

    async def open(self) -> TextIO:
        """Open the stderr pipe; return its write end, for the SDK to give the process."""
        read_fd, write_fd = os.pipe()
        self._writer = os.fdopen(write_fd, "w")
        loop = asyncio.get_running_loop()
        self._transport, _ = await loop.connect_read_pipe(
            lambda: _StderrReader(self), os.fdopen(read_fd, "rb", buffering=0)
        )
        return self._writer

    async def finish(self) -> None:
        """Once the process is stopped: close our write end and read what is left of stderr
        (up to :data:`EOF_WAIT_S`), then close the pipe. Idempotent."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None
            if self.exit_code is None:
                try:
                    await asyncio.wait_for(self._eof.wait(), EOF_WAIT_S)
                except TimeoutError:
                    pass  # a child of the server still holds stderr open
        if self._transport is not None:
            self._transport.close()
            self._transport = None

    def sentence(self) -> str | None:
        """How the process ended, for the person (None while it has not)."""
        if self.exit_code is None:
            return None
        code = self.exit_code
        if code == 127:
            said = "its command cannot be started (not found)"
        elif code == 126:
            said = "its command cannot be started (not executable)"
        elif code > 128:
            said = f"its process was stopped by signal {code - 128} (exit code {code})"
        else:
            said = f"its process exited with code {code}"
        if self.tail:
            said += "; its last lines on stderr: " + " ".join(f"“{line}”" for line in self.tail)
        return said

    def _feed(self, data: bytes) -> None:
        lines = (self._buffer + data).split(b"\n")
        self._buffer = lines.pop()[-MAX_BUFFER_BYTES:]
        for raw in lines:
            self._line(raw.decode("utf-8", errors="replace").strip())

    def _line(self, line: str) -> None:
        marker, _, code = line.partition(" ")
        if marker == self._marker and code.lstrip("-").isdigit():
            self.exit_code = int(code)
            if self.on_exit is not None:
                self.on_exit()
        elif line:
            logger.info("MCP server %s: %s", self.server, line)
            self.tail.append(visible(line, MAX_LINE_CHARS))

    def _ended(self) -> None:
        if self._buffer:
            self._line(self._buffer.decode("utf-8", errors="replace").strip())
            self._buffer = b""
        self._eof.set()


class _StderrReader(asyncio.Protocol):
    def __init__(self, watch: StdioWatch) -> None:
        self.watch = watch

    def data_received(self, data: bytes) -> None:
        self.watch._feed(data)

    def eof_received(self) -> bool | None:
        self.watch._ended()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.watch._eof.set()
