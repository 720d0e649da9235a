"""The threads :meth:`~interlock.storage.db.Database.run` hands its calls to.

A fixed set of threads taking calls from one queue, in order. Lighter per call than a
``ThreadPoolExecutor``: a call is one ``put`` and one ``get`` of a queue, where the executor
builds a future (a condition and its lock), takes two locks to submit, tries a semaphore to
see whether a thread is idle and, on the thread, goes through the future's condition twice
(running, then its result). The caller learns the outcome from the call itself
(:class:`~interlock.storage.db.Database` hands it to the event loop).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from queue import SimpleQueue

__all__ = ["Threads"]

log = logging.getLogger(__name__)


class Threads:
    """``size`` threads named ``name-N`` running submitted calls in the order submitted.

    The threads start with the first call and are daemon threads: :meth:`shutdown` lets
    them finish every call submitted before it (the server's shutdown disposes the database,
    which calls it), and nothing else waits for them at the interpreter's exit.

    Args:
        size: How many threads.
        name: Their names' prefix.
        initializer: Called first on each thread.
    """

    def __init__(self, size: int, name: str, initializer: Callable[[], None] | None = None) -> None:
        self._size = size
        self._name = name
        self._initializer = initializer
        self._queue: SimpleQueue[Callable[[], None] | None] = SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._shut = False

    def submit(self, call: Callable[[], None]) -> None:
        """Run ``call`` on one of the threads, after the calls submitted before it. What it
        raises is logged (callers hand their outcomes over themselves).

        Raises:
            RuntimeError: After :meth:`shutdown`.
        """
        with self._lock:
            if self._shut:
                raise RuntimeError("cannot run database calls after the database was disposed")
            if not self._threads:
                self._start()
            self._queue.put(call)  # under the lock: never after shutdown's stop marks

    def shutdown(self) -> None:
        """Let the threads finish the calls submitted so far, then stop them (and wait)."""
        with self._lock:
            if self._shut:
                return
            self._shut = True
            threads = list(self._threads)
        for _thread in threads:
            self._queue.put(None)
        for thread in threads:
            thread.join()

    def _start(self) -> None:
        """Start the threads (called holding the lock)."""
        for i in range(self._size):
            thread = threading.Thread(target=self._work, name=f"{self._name}_{i}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _work(self) -> None:
        if self._initializer is not None:
            self._initializer()
        get = self._queue.get
        while True:
            call = get()
            if call is None:
                return
            try:
                call()
            except BaseException:  # a call hands its outcome over itself; keep the thread
                log.exception("database call %r failed outside its own handling", call)
