"""Bounded waits on a condition (never a bare sleep in a test)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

POLL_S = 0.02


async def wait_until(condition: Callable[[], bool], *, timeout_s: float, what: str) -> None:
    """Return once ``condition()`` is true; fail the test after ``timeout_s`` seconds.

    Args:
        condition: Checked every few milliseconds (cheap, no I/O on the event loop).
        timeout_s: Upper bound of the wait, in seconds.
        what: What is awaited, for the failure message.
    """
    try:
        async with asyncio.timeout(timeout_s):
            # The condition is a clock or a row: there is no event to await, so poll it.
            while not condition():  # noqa: ASYNC110
                await asyncio.sleep(POLL_S)
    except TimeoutError:
        raise AssertionError(f"waited {timeout_s:g} s for {what}") from None
