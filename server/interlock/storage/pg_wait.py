"""PostgreSQL connections whose request threads send without asking the OS for room first.

psycopg drives every exchange with the server through a generator that says what it waits
for: to read (a result), or to read or write (to send). For each wait the driver's wait
function polls the socket with the GIL released. A poll for room to send returns at once
(the socket's buffer is nearly always empty), but releasing the GIL lets a waiting thread
take it, and under load the thread that let go then waits for it back, up to Python's switch
interval (5 ms) or longer. In pipeline mode psycopg asks twice per statement and twice per
sync: a decision polled its socket 35 times for its 3 round trips, and in bench (d)'s load
(two workers, fifty conversations cycling on two cores) those 32 polls for room cost its
transaction 6-10 ms on average (``bench/crossing_trace.py``'s decision transaction, waits
timed by kind).

On a request thread (:func:`~interlock.storage.writer.mark_urgent_thread`: the threads that
serve a person's request, such as a decision), :class:`WriteFirstConnection` answers the first
few of a wait's "read or write" requests with "writable" without polling: psycopg then flushes
its buffer with a non-blocking send, which moves the data or leaves it for later. Waits for
results are polled as before, and after :data:`UNPOLLED_WRITES` unpolled answers in one wait
every request is polled too, so a socket that really is full is waited on (reading while
waiting, as psycopg does) and never spun on. A decision now polls 3 times, once per round trip.

Runs' threads poll as before, on purpose: each of their polls hands the GIL over, and that is
when a request thread waiting for it gets it. Unpolled on every thread (a fresh cycle's polls
fell from about 270 to 46 in all), a decision's waits for the GIL between its statements grew
(p50 5-7 ms to 15 ms in two paired runs of the trace): the run threads then held the GIL until
Python forced a switch.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import psycopg
from psycopg.waiting import Ready, Wait
from sqlalchemy import event
from sqlalchemy.engine import Engine

from interlock.storage.pg_priority import giving_way, is_run_thread
from interlock.storage.writer import is_urgent_thread

__all__ = ["UNPOLLED_WRITES", "WriteFirstConnection", "install"]

UNPOLLED_WRITES = 8
"""Most "read or write" requests of one wait answered "writable" without a poll. A statement
in pipeline mode makes two, a sync two, a flush that could not send everything one per try."""

_READ = int(Wait.R)
_WRITABLE = int(Ready.W)


class WriteFirstConnection(psycopg.Connection[Any]):
    """A psycopg connection that, on a request thread, polls to send only when it had no room."""

    def wait(self, gen: Any, interval: float | None = 0.1, timeout: float | None = None) -> Any:
        """psycopg's wait, with the first sends of ``gen`` not polled on a request thread.

        Args:
            gen: psycopg's generator of waits.
            interval: As psycopg's (its default).
            timeout: As psycopg's.

        Returns:
            What ``gen`` returns.
        """
        if is_urgent_thread():
            gen = _writes_first(gen)
        elif is_run_thread():
            gen = giving_way(gen)
        return super().wait(gen, interval, timeout)  # type: ignore[arg-type]


def _writes_first(gen: Generator[Any, Any, Any]) -> Generator[Any, Any, Any]:
    """Drive ``gen``, answering up to :data:`UNPOLLED_WRITES` of its requests to write (or
    read or write) with "writable" itself; yield every other request to the real wait."""
    unpolled = 0
    try:
        state = next(gen)
        while True:
            if state != _READ and unpolled < UNPOLLED_WRITES:
                unpolled += 1
                state = gen.send(_WRITABLE)
            else:
                state = gen.send((yield state))
    except StopIteration as done:
        return done.value


def install(engine: Engine) -> None:
    """Open ``engine``'s connections (psycopg) as :class:`WriteFirstConnection`."""

    def connect(_dialect: Any, _record: Any, cargs: Any, cparams: Any) -> WriteFirstConnection:
        return WriteFirstConnection.connect(*cargs, **cparams)

    event.listen(engine, "do_connect", connect)
