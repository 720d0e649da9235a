"""Server processes as rows of ``workers``: registering this one, and which others are alive.

Every server process is a row in ``workers`` (its id, host, process id and heartbeat). A row
whose heartbeat is older than ``EXPIRY`` of the run lease is a dead worker's
(:func:`dead_before`); :mod:`~interlock.engine.leases` renews this process's heartbeat and
takes over the runs of dead workers. SQLite takes one server process:
:func:`live_sqlite_server` finds another one still alive, so that a second process refuses to
start instead of taking the first one's runs for a dead worker's.

All functions here are blocking calls (database or process checks).
"""

from __future__ import annotations

import os
import socket
from datetime import datetime, timedelta

from sqlalchemy import delete, select
from sqlmodel import Session, col

from interlock.storage import Database, Worker
from interlock.storage.models import as_utc, utcnow

EXPIRY = 0.6
"""A worker is dead when its heartbeat is older than this fraction of the lease."""


def dead_before(lease_s: float) -> datetime:
    """The heartbeat time (UTC) before which a worker is dead, for a lease of ``lease_s``."""
    return utcnow() - timedelta(seconds=EXPIRY * lease_s)


def this_worker(worker_id: str) -> Worker:
    """A new ``workers`` row for this process (its host name and process id), as ``worker_id``."""
    return Worker(id=worker_id, host=socket.gethostname()[:200], pid=os.getpid())


def register(db: Database, worker_id: str, lease_s: float) -> None:
    """Write this process's row as ``worker_id`` (replacing a row of that id).

    On SQLite every other row is deleted as stale (one process per SQLite database), unless
    it belongs to a live process.

    Raises:
        RuntimeError: Another live server process serves this SQLite database (the message
            says which, and what to do).
    """
    with db.session() as session:
        if db.is_sqlite:  # one process per SQLite database: any other row is stale
            other = live_sqlite_server(session, lease_s)
            if other is not None:  # ... unless it is alive: its runs are not ours to take
                raise RuntimeError(sqlite_in_use_text(other, str(db.url)))
            session.exec(delete(Worker))  # type: ignore[call-overload]
        else:
            mine = delete(Worker).where(col(Worker.id) == worker_id)
            session.exec(mine)  # type: ignore[call-overload]
        session.add(this_worker(worker_id))
        session.commit()


def deregister(db: Database, worker_id: str) -> None:
    """Delete the row of ``worker_id`` (its runs are taken over at the next sweep)."""
    with db.session() as session:
        statement = delete(Worker).where(col(Worker.id) == worker_id)
        session.exec(statement)  # type: ignore[call-overload]
        session.commit()


def live_sqlite_server(session: Session, lease_s: float) -> Worker | None:
    """Another server process alive on this SQLite database, if any.

    SQLite takes one server process: a second one would take the first one's runs for a
    dead worker's and end them. A row is alive when its heartbeat is younger than
    ``EXPIRY * lease_s`` and, on this host, its process still exists. Rows of this very
    process (tests run several engines in one) never count.
    """
    host, me = socket.gethostname()[:200], os.getpid()
    cutoff = dead_before(lease_s)
    for row in session.scalars(select(Worker)):
        if (row.host, row.pid) == (host, me) or as_utc(row.heartbeat_at) < cutoff:
            continue
        if row.host == host and not _process_exists(row.pid):
            continue  # killed a moment ago: its lease has not lapsed yet, but it is gone
        return row
    return None


def sqlite_in_use_text(other: Worker, url: str) -> str:
    """Why this process may not serve the SQLite database ``url`` that ``other`` serves."""
    return (
        f"Another Interlock server (process {other.pid} on {other.host or 'this machine'}) "
        f"is serving the SQLite database {url}; SQLite takes one server process. Stop that "
        "one first, or set INTERLOCK_DATABASE_URL to another database (PostgreSQL for "
        "several workers)."
    )


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    except OSError:
        return False
    return True
