"""Database engine and sessions.

SQLite (default) runs in WAL mode with a busy timeout, so readers never block the writer and a
writer waits instead of failing at once; PostgreSQL is used when ``database_url`` says so.
Every request or task opens its own short session with :meth:`Database.session`; no session is
shared across tasks.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine, make_url
from sqlmodel import Session, create_engine

SQLITE_BUSY_TIMEOUT_MS = 5_000


class Database:
    """Owns the SQLAlchemy engine.

    Args:
        url: SQLAlchemy URL; ``postgresql://`` is read as ``postgresql+psycopg://``.
    """

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        if parsed.drivername in ("postgresql", "postgres"):
            parsed = parsed.set(drivername="postgresql+psycopg")
        self.url = parsed
        self.is_sqlite = parsed.get_backend_name() == "sqlite"
        kwargs: dict[str, Any] = {}
        if self.is_sqlite:
            if parsed.database and parsed.database != ":memory:":
                Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
            kwargs["connect_args"] = {
                "check_same_thread": False,
                "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000,
            }
        else:
            kwargs["pool_size"] = 10
            kwargs["max_overflow"] = 20
            kwargs["pool_pre_ping"] = True
        self.engine: Engine = create_engine(parsed, **kwargs)
        if self.is_sqlite:
            event.listen(self.engine, "connect", _sqlite_on_connect)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """Yield a new session; commit is the caller's, rollback happens on error."""
        with Session(self.engine, expire_on_commit=False) as session:
            try:
                yield session
            except BaseException:
                session.rollback()
                raise

    def dispose(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()


def _sqlite_on_connect(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()
