"""Counting the socket polls psycopg makes (``psycopg.waiting.wait``), for the tests of
round trips and of ``storage/pg_wait.py``."""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import pytest


def count_polls(
    monkeypatch: pytest.MonkeyPatch, only: Callable[[], bool] | None = None
) -> list[int]:
    """The socket polls psycopg's wait function makes from now on (one list item each: the
    state it waited for).

    Args:
        monkeypatch: Undoes the wrapping after the test.
        only: Count only the waits for which this is true when they start (e.g. on request
            threads); None counts every wait.

    Returns:
        The list the polls are appended to as they are made.
    """
    import psycopg.waiting as waiting

    made: list[int] = []
    real = waiting.wait

    def counted(gen: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
        try:
            state = next(gen)
            while True:
                made.append(int(state))
                state = gen.send((yield state))
        except StopIteration as done:
            return done.value

    def wait(gen: Any, fileno: int, interval: Any = None, timeout: Any = None) -> Any:
        if only is None or only():
            gen = counted(gen)
        return real(gen, fileno, interval=interval, timeout=timeout)

    monkeypatch.setattr(waiting, "wait", wait)
    return made
