"""Which database errors mean "busy" or "run again", and how long to wait before running again.

:func:`is_busy_error` tells a wait that timed out (a lock, a pooled connection, SQLite's busy
timeout, PostgreSQL's ``lock_timeout`` or ``statement_timeout``) from other errors: it is
answered 503 ``database_busy``. :func:`is_conflict` tells a transaction PostgreSQL ended for
a deadlock or a serialization failure, which
:meth:`~interlock.storage.db.Database.run_transaction` runs again after
:func:`retry_wait_s`.
"""

from __future__ import annotations

import random

from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from interlock.errors import DatabaseBusy

# PostgreSQL SQLSTATEs: lock_not_available (lock_timeout), query_canceled
# (statement_timeout), serialization and deadlock failures.
_PG_BUSY_STATES = {"55P03", "57014", "40001", "40P01"}
_PG_CONFLICT_STATES = {"40001", "40P01"}
"""Serialization and deadlock failures: PostgreSQL ended the transaction to let another
through; run again, it meets that one's outcome (:meth:`~interlock.storage.db.Database.run_transaction`)."""
TRANSACTION_TRIES = 3
RETRY_WAIT_S = 0.1
"""Mean wait, in seconds, before a transaction PostgreSQL ended for a conflict runs again
(doubled for each further try, each wait drawn between half and one and a half times it).

On a deadlock PostgreSQL fails one transaction and wakes the other, whose backend must still
be scheduled to take the row the failed one freed. Run again at once, the failed one could
take that row first and deadlock anew (the winner then failing, after another
``deadlock_timeout``): one try in 30 did so under CPU load (commit aaf9365). The loser has
waited ``deadlock_timeout`` (1 s by default) already; a tenth of that lets the woken winner
take the row (one scheduling of its process, milliseconds) and go on, so the next try waits
for its commit instead of crossing it. The jitter keeps transactions that failed together
from trying again together. Measured with the crossing of ``tests/storage/test_db_transactions``
without its own wait for the winner, under CPU load: run again at once, the loser deadlocked
anew in 5 of 30 runs; after this wait, in 0 of 30."""


def retry_wait_s(attempt: int) -> float:
    """The wait, in seconds, before the try after try ``attempt`` (1 for the first) of
    :meth:`~interlock.storage.db.Database.run_transaction`: :data:`RETRY_WAIT_S` doubled per try, jittered."""
    return RETRY_WAIT_S * float(2 ** (attempt - 1)) * random.uniform(0.5, 1.5)


def is_busy_error(exc: BaseException) -> bool:
    """Whether ``exc`` means "waited too long for a lock or a connection".

    Args:
        exc: An exception raised by SQLAlchemy or a driver.
    """
    if isinstance(exc, DatabaseBusy | PoolTimeout):
        return True
    if not isinstance(exc, OperationalError):
        return False
    state = getattr(exc.orig, "sqlstate", None)
    if state in _PG_BUSY_STATES:
        return True
    text = str(exc.orig).lower()
    return "database is locked" in text or "database is busy" in text


def is_conflict(exc: BaseException | None) -> bool:
    """Whether ``exc`` is PostgreSQL ending a transaction for a deadlock or serialization."""
    orig = getattr(exc, "orig", None)
    return isinstance(exc, OperationalError) and getattr(orig, "sqlstate", None) in (
        _PG_CONFLICT_STATES
    )
