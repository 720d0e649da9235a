"""PostgreSQL: runs' threads give way to the database calls of requests (what a person waits for).

A worker's threads share one GIL, and after each round trip to PostgreSQL the thread that
made it must win the GIL back. Under bench (d)'s load (two workers, fifty conversations
cycling, two cores) a decision's transaction took 38 ms p50 of wall time for about 4 ms of
its own CPU time: its 3 socket polls 5 ms in all, the waits for the GIL right after them 6-7
ms (each poll timed in C by a scratch hook of ``bench/crossing_trace.py``, so the wait for
the GIL after it is seen apart), and the rest, some 20 ms, spent between polls without the
GIL (psycopg releases it around its calls into libpq, and the thread then waits to get it
back). The runs' two threads rarely waited: 0.3 ms on average after a poll, against the
decision's 3 ms.

So while a request's call runs on a request thread (:class:`RequestsInFlight`, counted by
:meth:`~interlock.storage.db.Database.run`), each wait of a runs' thread for PostgreSQL is
followed by a short pause (:func:`give_way`, at most :data:`GIVE_WAY_S`) that ends as soon as
no request's call runs: the thread sleeps on a condition instead of contending for the GIL,
which goes to the request thread (or the event loop). The pause is bounded because a runs'
thread may be inside a transaction holding row locks a request waits for: such a wait then
costs the request one pause at most, never a deadlock. In the same trace the decision's
transaction fell to 18-25 ms p50 (its waits for the GIL after its polls 0.1-0.3 ms in all,
p50), and in
paired quick runs of bench (d) the decision → other worker p95 fell in 9 pairs of 11 (e.g. 208
→ 76 ms, 235 → 54 ms), not in 2. The price: a runs' step waits while requests run, so a
worker may idle (cycles/s over those pairs: two workers 26.7 → 26.4 on average, one worker
21.5 → 19.2, on a machine shared with other work). Pauses of 2 and 5 ms idled more for no
shorter decisions; 1 ms is kept.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Generator
from typing import Any, TypeVar

__all__ = [
    "GIVE_WAY_S",
    "REQUESTS",
    "RequestsInFlight",
    "give_way",
    "giving_way",
    "is_run_thread",
    "mark_run_thread",
]

GIVE_WAY_S = 0.001
"""Longest pause of a runs' thread after one of its waits for PostgreSQL, in seconds."""

T = TypeVar("T")

_run_thread = threading.local()


class RequestsInFlight:
    """How many requests' database calls are running, and a wait for there to be none."""

    def __init__(self) -> None:
        self._condition = threading.Condition(threading.Lock())
        self.running = 0
        """Requests' calls running now."""
        self.giving_way = 0
        """Runs' threads pausing now (see :meth:`give_way`)."""

    def run(self, fn: Callable[[], T]) -> T:
        """Run ``fn()``, counted as a request's call while it runs.

        Returns:
            What ``fn`` returns (its exceptions propagate).
        """
        with self._condition:
            self.running += 1
        try:
            return fn()
        finally:
            with self._condition:
                self.running -= 1
                if not self.running and self.giving_way:
                    self._condition.notify_all()

    def give_way(self, bound_s: float) -> bool:
        """Pause while a request's call runs, at most ``bound_s`` seconds.

        Returns:
            True when no request's call runs (at once when none did: no pause), False when
            the pause ended at its bound.
        """
        if not self.running:  # read without the lock: a stale answer only pauses or not
            return True
        with self._condition:
            self.giving_way += 1
            try:
                return self._condition.wait_for(self._none_running, bound_s)
            finally:
                self.giving_way -= 1

    def _none_running(self) -> bool:
        return not self.running


REQUESTS = RequestsInFlight()
"""This process's requests' calls (one GIL per process, so one count)."""


def mark_run_thread() -> None:
    """Mark the calling thread as a runs' thread (a thread pool ``initializer``)."""
    _run_thread.value = True


def is_run_thread() -> bool:
    """Whether the calling thread was marked by :func:`mark_run_thread`."""
    return bool(getattr(_run_thread, "value", False))


def give_way() -> bool:
    """:meth:`RequestsInFlight.give_way` of this process, for :data:`GIVE_WAY_S` at most.

    Returns:
        As :meth:`RequestsInFlight.give_way`.
    """
    return REQUESTS.give_way(GIVE_WAY_S)


def giving_way(gen: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
    """Drive psycopg's generator of waits ``gen``, giving way (:func:`give_way`) after each
    wait before handing its outcome back to ``gen``.

    Returns:
        What ``gen`` returns.
    """
    try:
        state = next(gen)
        while True:
            ready = yield state
            if REQUESTS.running:
                give_way()
            state = gen.send(ready)
    except StopIteration as done:
        return done.value
