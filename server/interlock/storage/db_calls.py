"""One :meth:`~interlock.storage.db.Database.run` call: run on a database thread, its
outcome (and the work it defers to the loop) handed back to the event loop.

The thread hands the outcome over with one ``call_soon_threadsafe``; work a call hands back
to the loop (:func:`defer_to_caller`, e.g. delivering the events it committed) runs just
before its caller goes on, with the same wake-up of the loop.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from interlock.storage.writer import set_write_deadline

log = logging.getLogger(__name__)

_call_state = threading.local()


def defer_to_caller(callback: Callable[[], None]) -> bool:
    """Run ``callback`` on the event loop when the current :meth:`~interlock.storage.db.Database.run` call returns,
    just before its caller goes on.

    For work a call hands back to the loop (delivering the events it committed): one wake-up
    of the loop with the call's own result instead of one more. Call from a database thread.

    Returns:
        False when not inside a :meth:`~interlock.storage.db.Database.run` call (the caller hands it over itself).
    """
    deferred: list[Callable[[], None]] | None = getattr(_call_state, "deferred", None)
    if deferred is None:
        return False
    deferred.append(callback)
    return True


@dataclass
class Outcome:
    value: object
    error: BaseException | None
    deferred: list[Callable[[], None]]


class Call:
    """One :meth:`~interlock.storage.db.Database.run` call: run on a database thread, its outcome handed to the loop.

    Lighter than ``loop.run_in_executor`` with ``asyncio.shield`` (no chained futures): the
    thread hands the outcome over with one ``call_soon_threadsafe``. The caller awaits
    :attr:`waiter`; cancelled, it sets a new waiter and waits for the outcome all the same.
    """

    __slots__ = ("_call", "_deadline", "_loop", "_timeout_s", "outcome", "waiter")

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        call: Callable[[], object],
        deadline: float | None,
        timeout_s: float,
    ) -> None:
        self._loop = loop
        self._call = call
        self._deadline = deadline
        self._timeout_s = timeout_s
        self.outcome: Outcome | None = None
        self.waiter: asyncio.Future[None] = loop.create_future()

    def run(self) -> None:
        """On a database thread: run the call (its waits for locks bounded by its deadline,
        by default ``timeout_s`` from now), then hand its outcome to the loop."""
        deadline = self._deadline
        set_write_deadline(time.monotonic() + self._timeout_s if deadline is None else deadline)
        try:
            outcome = collecting(self._call)
        finally:
            set_write_deadline(None)
        try:
            self._loop.call_soon_threadsafe(self._done, outcome)
        except RuntimeError:  # the loop is closed: nobody waits any more
            pass

    def _done(self, outcome: Outcome) -> None:
        self.outcome = outcome
        if not self.waiter.done():
            self.waiter.set_result(None)


def collecting(call: Callable[[], object]) -> Outcome:
    """Run ``call`` on a database thread, collecting what it defers to the loop."""
    deferred: list[Callable[[], None]] = []
    _call_state.deferred = deferred
    try:
        return Outcome(call(), None, deferred)
    except BaseException as exc:  # raised again on the loop, after the deferred work ran
        return Outcome(None, exc, deferred)
    finally:
        _call_state.deferred = None


def run_deferred(deferred: list[Callable[[], None]]) -> None:
    for callback in deferred:
        try:
            callback()
        except Exception:  # like a callback the loop runs: logged, the call's result stands
            log.exception("deferred callback %r failed", callback)
