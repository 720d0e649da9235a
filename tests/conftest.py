"""Fixtures shared by the whole suite.

Database fixtures are parametrized over the two supported backends, so a test that asks for
``db_url``, ``database`` or ``make_settings`` runs once on SQLite and once on PostgreSQL:

* ``sqlite``: a file database in the test's ``tmp_path``.
* ``postgresql``: a new database ``interlock_test_<pid>_<hex>`` created on the server named by
  ``INTERLOCK_TEST_POSTGRES_URL`` (``make test`` sets it when ``pg_isready`` answers) and
  dropped after the test; without that variable these cases are skipped. They carry the
  ``postgres`` mark, so ``pytest -m "not postgres"`` leaves them out.

Every test runs with the ``INTERLOCK_*`` environment variables cleared (the
``INTERLOCK_TEST_*`` ones excepted), so a developer's own settings never leak into a test.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.pool import NullPool

from interlock.settings import Settings
from interlock.storage import Database
from interlock.storage.migrate import upgrade
from support.sse_shutdown import shutdown_state_per_loop

POSTGRES_URL_ENV = "INTERLOCK_TEST_POSTGRES_URL"
TEST_DATABASE_PREFIX = "interlock_test_"

SettingsFactory = Callable[..., Settings]


def pytest_configure(config: pytest.Config) -> None:
    """Register the suite's marks."""
    config.addinivalue_line(
        "markers", f"postgres: runs against PostgreSQL (skipped unless {POSTGRES_URL_ENV} is set)"
    )


@pytest.fixture(scope="session", autouse=True)
def _sse_shutdown_watcher_per_loop() -> Iterator[None]:
    """Give every event loop its own sse-starlette shutdown watcher.

    sse-starlette keeps one per thread; with a loop per test (and the browser tests' idle
    session loop) a watcher left on another loop meant no stream heard a later server's
    shutdown, which then hung (see :mod:`support.sse_shutdown`).
    """
    with shutdown_state_per_loop():
        yield


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Clear ``INTERLOCK_*`` variables (except ``INTERLOCK_TEST_*``) for the test."""
    for name in list(os.environ):
        if name.startswith("INTERLOCK_") and not name.startswith("INTERLOCK_TEST_"):
            monkeypatch.delenv(name)


class PostgresServer:
    """Creates and drops throwaway databases on a PostgreSQL server.

    Args:
        url: URL of an existing database on the server, used only for administration (the
            role needs the CREATEDB privilege).
    """

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        if parsed.drivername in ("postgresql", "postgres"):
            parsed = parsed.set(drivername="postgresql+psycopg")
        self.url: URL = parsed
        self.engine: Engine = create_engine(
            parsed, isolation_level="AUTOCOMMIT", poolclass=NullPool
        )

    def create_database(self) -> str:
        """Create an empty database and return its URL."""
        name = f"{TEST_DATABASE_PREFIX}{os.getpid()}_{uuid.uuid4().hex[:8]}"
        with self.engine.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        return self.url.set(database=name).render_as_string(hide_password=False)

    def drop_database(self, url: str) -> None:
        """Drop the database at ``url``, closing any connection still open to it."""
        name = make_url(url).database
        with self.engine.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    def drop_orphans(self) -> None:
        """Drop test databases left by test runs that died on this machine.

        A name carries the pid of the pytest process that made it; only databases whose process
        is gone are dropped, so concurrent test runs on the same server are left alone. Nothing
        is dropped on a server that is not on this machine.
        """
        if self.url.host not in (None, "", "localhost", "127.0.0.1", "::1"):
            return
        with self.engine.connect() as connection:
            names = connection.execute(
                text("SELECT datname FROM pg_database WHERE datname LIKE :prefix"),
                {"prefix": TEST_DATABASE_PREFIX.replace("_", r"\_") + "%"},
            ).scalars()
            for name in list(names):
                pid = name.removeprefix(TEST_DATABASE_PREFIX).split("_")[0]
                if pid.isdigit() and not _process_exists(int(pid)):
                    connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    def dispose(self) -> None:
        """Release the administration engine."""
        self.engine.dispose()


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The PostgreSQL server of ``INTERLOCK_TEST_POSTGRES_URL``; skips the test when unset."""
    url = os.environ.get(POSTGRES_URL_ENV)
    if not url:
        pytest.skip(
            f"{POSTGRES_URL_ENV} is not set: PostgreSQL cases skipped "
            "(make test sets it when pg_isready answers on 127.0.0.1:5432)"
        )
    server = PostgresServer(url)
    server.drop_orphans()
    yield server
    server.dispose()


@pytest.fixture
def pg_url(postgres_server: PostgresServer) -> Iterator[str]:
    """A new, migrated PostgreSQL database for this test (dropped after it)."""
    url = postgres_server.create_database()
    upgrade(url)
    try:
        yield url
    finally:
        postgres_server.drop_database(url)


@pytest.fixture
def pg_database(pg_url: str) -> Iterator[Database]:
    """A :class:`~interlock.storage.Database` on ``pg_url``, disposed afterwards."""
    db = Database(pg_url)
    try:
        yield db
    finally:
        db.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> str:
    """Name of the database backend of this test case: ``sqlite`` or ``postgresql``."""
    return str(request.param)


@pytest.fixture
def empty_db_url(
    backend: str, request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """URL of a new, empty (never migrated) database on ``backend``, removed afterwards."""
    if backend == "sqlite":
        directory = tmp_path_factory.mktemp("db")
        yield f"sqlite:///{directory / 'interlock.db'}"
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = server.create_database()
    try:
        yield url
    finally:
        server.drop_database(url)


@pytest.fixture
def db_url(empty_db_url: str) -> str:
    """URL of a new database on ``backend`` with every migration applied."""
    upgrade(empty_db_url)
    return empty_db_url


@pytest.fixture
def database(db_url: str) -> Iterator[Database]:
    """A :class:`~interlock.storage.Database` on the migrated ``db_url``, disposed afterwards."""
    db = Database(db_url)
    try:
        yield db
    finally:
        db.dispose()


@pytest.fixture
def make_settings(db_url: str, tmp_path_factory: pytest.TempPathFactory) -> SettingsFactory:
    """Build :class:`~interlock.settings.Settings` on the migrated ``db_url`` (no web client).

    ``make_settings(offline_token_delay_s=0.02)`` returns settings with that override; no
    ``.env`` file and (thanks to ``_isolated_environment``) no ``INTERLOCK_*`` variable is read.
    """
    no_client = tmp_path_factory.mktemp("no-client")

    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {"database_url": db_url, "client_dist": no_client, **overrides}
        return Settings(_env_file=None, **values)

    return make
