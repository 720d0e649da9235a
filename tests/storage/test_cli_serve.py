"""``interlock serve``: migrates, then runs uvicorn with the settings (uvicorn and the app
stubbed); what it refuses before any start-up work, and how it binds and shuts down."""

from __future__ import annotations

import gc
import socket
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlmodel import select
from typer.testing import CliRunner

from interlock import cli
from interlock.settings import Settings
from interlock.storage import Database, migrate

runner = CliRunner()


def test_serve_migrates_then_runs_uvicorn_with_the_settings(
    sqlite_url: str, fake_app: list[Settings | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[dict[str, Any]] = []

    def fake_run(app: Any, **kwargs: Any) -> None:
        runs.append({"app": app, **kwargs})

    monkeypatch.setattr("uvicorn.run", fake_run)

    result = runner.invoke(cli.app, ["serve", "--port", "8123"])

    assert result.exit_code == 0, result.output
    assert migrate.current_revision(sqlite_url) == migrate.head_revision()
    [run] = runs
    assert run["factory"] is True
    assert (run["host"], run["port"]) == ("127.0.0.1", 8123)
    assert isinstance(run["app"](), FastAPI)
    [settings] = fake_app
    assert settings is not None
    assert (settings.host, settings.port, settings.database_url) == ("127.0.0.1", 8123, sqlite_url)
    assert "warning" not in result.stderr


def test_serve_starts_without_garbage_collection_and_turns_it_back_on(
    sqlite_url: str, fake_app: list[Settings | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Imports and start-up run with the collector off (the app's lifespan freezes what they
    leave and turns it on, api.app.freeze_startup_objects); a refusal or the end of serving
    turns it back on too."""
    collecting: list[bool] = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kwargs: collecting.append(gc.isenabled()))

    result = runner.invoke(cli.app, ["serve"])

    assert result.exit_code == 0, result.output
    assert collecting == [False]
    assert gc.isenabled()
    refused = runner.invoke(cli.app, ["serve", "--workers", "2"])
    assert refused.exit_code == 1
    assert gc.isenabled()


def test_serve_warns_on_a_public_bind_without_users(
    sqlite_url: str, fake_app: list[Settings | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("uvicorn.run", lambda app, **kwargs: None)

    result = runner.invoke(cli.app, ["serve", "--host", "0.0.0.0"])

    assert result.exit_code == 0, result.output
    assert "warning" in result.stderr and "interlock users create" in result.stderr


def test_serve_prints_an_ipv6_address_in_brackets(
    sqlite_url: str, fake_app: list[Settings | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("uvicorn.run", lambda app, **kwargs: None)

    result = runner.invoke(cli.app, ["serve", "--host", "::1", "--port", "8123"])

    assert result.exit_code == 0, result.output
    assert "Interlock on http://[::1]:8123 " in result.stderr


def test_serve_refuses_several_workers_on_sqlite(
    sqlite_url: str, fake_app: list[Settings | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[Any] = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kwargs: runs.append(app))

    result = runner.invoke(cli.app, ["serve", "--workers", "2"])

    assert result.exit_code == 1
    assert "--workers 2 needs PostgreSQL" in result.stderr
    assert "INTERLOCK_DATABASE_URL=postgresql" in result.stderr
    assert runs == [] and fake_app == []
    assert migrate.current_revision(sqlite_url) is None  # refused before touching anything


def test_serve_bounds_the_graceful_shutdown_with_one_worker_or_several(
    sqlite_url: str, fake_app: list[Settings | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A SIGTERM always ends: uvicorn waits at most INTERLOCK_SHUTDOWN_GRACE_S for open
    connections (an MCP call waiting for a decision, a stream that missed the shutdown)."""
    runs: list[dict[str, Any]] = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kwargs: runs.append(kwargs))

    assert runner.invoke(cli.app, ["serve"]).exit_code == 0
    monkeypatch.setenv("INTERLOCK_SHUTDOWN_GRACE_S", "3")
    monkeypatch.setenv("INTERLOCK_DATABASE_URL", "postgresql+psycopg://u@127.0.0.1:1/none")
    monkeypatch.setattr(migrate, "upgrade", lambda url: None)
    result = runner.invoke(cli.app, ["serve", "--workers", "2"])

    assert result.exit_code == 0, result.output
    assert [run["timeout_graceful_shutdown"] for run in runs] == [10, 3]
    assert runs[1]["workers"] == 2


def test_serve_keeps_idle_connections_longer_than_http_clients_keep_them(
    sqlite_url: str, fake_app: list[Settings | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A client never sends a request on a pooled connection the server is closing unread
    (``httpx.ReadError``, case C15 on a loaded machine): the server's keep-alive outlasts
    httpx's (the MCP SDK's) and proxies' idle expiry, with one worker or several."""
    runs: list[dict[str, Any]] = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kwargs: runs.append(kwargs))

    assert runner.invoke(cli.app, ["serve"]).exit_code == 0
    monkeypatch.setenv("INTERLOCK_DATABASE_URL", "postgresql+psycopg://u@127.0.0.1:1/none")
    monkeypatch.setattr(migrate, "upgrade", lambda url: None)
    assert runner.invoke(cli.app, ["serve", "--workers", "2"]).exit_code == 0

    httpx_expiry = httpx.Limits().keepalive_expiry
    assert httpx_expiry is not None
    for run in runs:
        assert run["timeout_keep_alive"] > max(httpx_expiry, 60), run


def test_serve_refuses_a_port_outside_1_to_65535(sqlite_url: str) -> None:
    for port in ("0", "65536", "99999"):
        result = runner.invoke(cli.app, ["serve", "--port", port])
        assert result.exit_code == 2 and "--port" in result.output, port


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.0.0.2", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.10", False),
        ("example.com", False),
    ],
)
def test_is_loopback_host(host: str, loopback: bool) -> None:
    assert cli.is_loopback_host(host) is loopback


def test_serve_refuses_a_second_server_on_one_sqlite_database(
    sqlite_url: str, fake_app: list[Settings | None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second ``interlock serve`` on a SQLite database a live server uses (``make run``
    twice, or a port already taken) used to take the live server's runs for a dead worker's
    and end them ``server_restarted``; it must stop before its start-up recovery instead."""
    import socket
    import subprocess

    from interlock.engine.workers import live_sqlite_server
    from interlock.storage import Worker

    runs: list[Any] = []
    monkeypatch.setattr("uvicorn.run", lambda app, **kwargs: runs.append(app))
    migrate.upgrade(sqlite_url)
    database = Database(sqlite_url)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with database.session() as session:
            session.add(Worker(id="wrk_live", host=socket.gethostname()[:200], pid=other.pid))
            session.commit()

        result = runner.invoke(cli.app, ["serve"])

        assert result.exit_code == 1, result.output
        assert f"Another Interlock server (process {other.pid} on " in result.stderr
        assert "SQLite takes one server process" in result.stderr
        assert runs == [] and fake_app == []
        with database.session() as session:
            assert [w.id for w in session.exec(select(Worker))] == ["wrk_live"]
    finally:
        other.kill()
        other.wait()
    try:
        # The same row once its process is gone (killed before its lease lapsed): stale.
        with database.session() as session:
            assert live_sqlite_server(session, lease_s=10.0) is None
    finally:
        database.dispose()
    assert runner.invoke(cli.app, ["serve"]).exit_code == 0
    assert len(runs) == 1


@pytest.mark.parametrize("workers", ["1", "2"])
def test_serve_names_a_taken_port_before_any_start_up_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: str
) -> None:
    url = f"postgresql+psycopg://nobody@127.0.0.1:1/never-reached{workers}"
    if workers == "1":
        url = f"sqlite:///{tmp_path / 'never-created.db'}"
    monkeypatch.setenv("INTERLOCK_DATABASE_URL", url)
    monkeypatch.setattr("uvicorn.run", lambda *args, **kwargs: pytest.fail("uvicorn ran"))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = runner.invoke(cli.app, ["serve", "--port", str(port), "--workers", workers])

    assert result.exit_code == 1, result.output
    assert f"127.0.0.1:{port} is already in use" in result.stderr
    assert "INTERLOCK_PORT" in result.stderr and "--port" in result.stderr
    assert "Errno" not in result.output
    suggested = int(result.stderr.split("--port ")[1].split("`")[0])
    with socket.socket() as probe:  # the port it suggests is free (the taken one is closed)
        probe.bind(("127.0.0.1", suggested))
    assert not (tmp_path / "never-created.db").exists()  # no migration ran
