"""sse-starlette's shutdown watcher, kept per event loop instead of per thread (tests only).

An ``EventSourceResponse`` (``/api/events``, the AG-UI endpoint, an MCP call waiting for a
decision) learns that uvicorn is shutting down only from sse-starlette's shutdown watcher: one
task per *thread* (``sse_starlette.sse._thread_state``, flag ``watcher_started``) that polls
``AppStatus.should_exit`` and the uvicorn server found through the SIGTERM handler. uvicorn
waits for open connections before its lifespan shutdown, so a stream that never hears of the
shutdown keeps the server up.

A server process has one loop per thread, but the test suite runs many loops in the main
thread: pytest-asyncio gives each test a new one, and the browser tests share a session loop
that sits idle (open, not running) between them. A watcher started on such an idle loop stays
pending there with ``watcher_started`` set, so no watcher ever runs on a later test's loop and
the next test stopping a server while a stream waits hangs until its timeout (seen in a full
random-order run: ``test_a_server_stopping_closes_the_calls_it_cannot_answer``, seed
1869703179). sse-starlette 3.7 offers no public way to reset that state, so the suite swaps the
thread-local holder for one that keeps a state per running loop: every loop gets its own
watcher, exactly as one thread per loop would.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sse_starlette import sse


class PerLoopShutdownState:
    """Stands in for ``sse._thread_state``: ``shutdown_state`` is looked up per running loop."""

    def __init__(self) -> None:
        self._states: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = (
            weakref.WeakKeyDictionary()
        )

    @property
    def shutdown_state(self) -> Any:
        """The running loop's state, or ``None`` (sse-starlette then makes and sets one)."""
        return self._states.get(asyncio.get_running_loop())

    @shutdown_state.setter
    def shutdown_state(self, state: Any) -> None:
        self._states[asyncio.get_running_loop()] = state


@contextmanager
def shutdown_state_per_loop() -> Iterator[None]:
    """Install :class:`PerLoopShutdownState` for the duration of the block."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sse, "_thread_state", PerLoopShutdownState())
        yield
