"""SQLite connections: WAL journal, busy timeout, foreign keys."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa

from interlock.storage import Database


def test_every_connection_gets_the_pragmas(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'nested' / 'interlock.db'}", lock_timeout_s=2.5)
    try:
        with database.engine.connect() as first, database.engine.connect() as second:
            for connection in (first, second):
                assert connection.execute(sa.text("PRAGMA journal_mode")).scalar() == "wal"
                busy_timeout = connection.execute(sa.text("PRAGMA busy_timeout")).scalar()
                assert busy_timeout == 2500  # the lock timeout, in milliseconds
                assert connection.execute(sa.text("PRAGMA foreign_keys")).scalar() == 1
    finally:
        database.dispose()
    assert (tmp_path / "nested" / "interlock.db").exists()


def test_postgresql_scheme_uses_psycopg() -> None:
    database = Database("postgresql://someone@127.0.0.1:1/nothing")
    try:
        assert database.url.drivername == "postgresql+psycopg"
        assert not database.is_sqlite
    finally:
        database.dispose()


def test_the_busy_timeout_defaults_to_five_seconds(tmp_path: Path) -> None:
    database = Database(f"sqlite:///{tmp_path / 'interlock.db'}")
    try:
        with database.engine.connect() as connection:
            assert connection.execute(sa.text("PRAGMA busy_timeout")).scalar() == 5000
    finally:
        database.dispose()
