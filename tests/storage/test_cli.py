"""The ``interlock`` command: db, users, serve and openapi (uvicorn and the app stubbed)."""

from __future__ import annotations

import gc
import json
import socket
import sys
import types
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
from interlock.storage.users import get_or_create_local_user, list_users, user_by_token

runner = CliRunner()


@pytest.fixture
def sqlite_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Point ``INTERLOCK_DATABASE_URL`` at a new SQLite file; run from ``tmp_path``."""
    url = f"sqlite:///{tmp_path / 'var' / 'interlock.db'}"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("INTERLOCK_DATABASE_URL", url)
    return url


@pytest.fixture
def fake_app(monkeypatch: pytest.MonkeyPatch) -> list[Settings | None]:
    """Stand in for ``interlock.api.app``; returns the settings each create_app call got."""
    calls: list[Settings | None] = []

    def create_app(settings: Settings | None = None) -> FastAPI:
        calls.append(settings)
        app = FastAPI(title="Interlock")

        @app.get("/api/health")
        def health() -> dict[str, str]:
            return {"status": "ok"}

        return app

    # uvicorn is stubbed, so the port it would bind is not probed either (8000 may be taken
    # by another server on this machine); test_serve_names_a_taken_port probes a real one.
    monkeypatch.setattr(cli, "refuse_a_taken_port", lambda host, port: None)
    module = types.ModuleType("interlock.api.app")
    module.create_app = create_app  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "interlock.api.app", module)
    return calls


def test_db_upgrade_and_current(sqlite_url: str) -> None:
    before = runner.invoke(cli.app, ["db", "current"])
    assert before.exit_code == 0, before.output
    assert before.stdout.startswith("none")

    result = runner.invoke(cli.app, ["db", "upgrade"])
    assert result.exit_code == 0, result.output
    assert migrate.current_revision(sqlite_url) == migrate.head_revision()

    again = runner.invoke(cli.app, ["db", "upgrade"])
    assert again.exit_code == 0, again.output
    current = runner.invoke(cli.app, ["db", "current"])
    assert current.stdout.strip() == f"{migrate.head_revision()} (head)"


def test_users_create_prints_only_the_token_on_stdout(sqlite_url: str) -> None:
    result = runner.invoke(cli.app, ["users", "create", "ann", "--role", "admin"])

    assert result.exit_code == 0, result.output
    token = result.stdout.strip()
    assert "\n" not in token and len(token) >= 43
    assert "shown only this once" in result.stderr
    database = Database(sqlite_url)
    try:
        user = user_by_token(database, token)
    finally:
        database.dispose()
    assert user is not None and user.name == "ann" and user.role == "admin"


def test_users_create_twice_fails(sqlite_url: str) -> None:
    assert runner.invoke(cli.app, ["users", "create", "ann"]).exit_code == 0

    result = runner.invoke(cli.app, ["users", "create", "ann"])

    assert result.exit_code == 1
    assert "already exists" in result.stderr and "interlock users token ann" in result.stderr


def test_users_token_gives_the_implied_local_user_a_token_once_users_exist(
    sqlite_url: str,
) -> None:
    assert runner.invoke(cli.app, ["users", "create", "bob"]).exit_code == 0
    database = Database(sqlite_url)
    try:
        local = get_or_create_local_user(database)  # what loopback clients were until then
        assert runner.invoke(cli.app, ["users", "create", "local"]).exit_code == 1

        result = runner.invoke(cli.app, ["users", "token", "local"])

        assert result.exit_code == 0 and "only this once" in result.stderr
        user = user_by_token(database, result.stdout.strip())
    finally:
        database.dispose()
    assert user is not None and user.id == local.id


def test_users_token_for_an_unknown_user_fails_with_its_name(sqlite_url: str) -> None:
    result = runner.invoke(cli.app, ["users", "token", "nobody"])

    assert result.exit_code == 1 and "no user named 'nobody'" in result.stderr


def test_users_create_rejects_unknown_role(sqlite_url: str) -> None:
    result = runner.invoke(cli.app, ["users", "create", "ann", "--role", "owner"])

    assert result.exit_code == 2


def test_users_list(sqlite_url: str) -> None:
    empty = runner.invoke(cli.app, ["users", "list"])
    assert empty.exit_code == 0 and "No users" in empty.stderr
    runner.invoke(cli.app, ["users", "create", "ann", "--role", "admin"])
    runner.invoke(cli.app, ["users", "create", "bob"])

    result = runner.invoke(cli.app, ["users", "list"])

    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["ID", "NAME", "ROLE", "TOKEN", "CREATED"]
    assert [line.split()[1:4] for line in lines[1:]] == [
        ["ann", "admin", "yes"],
        ["bob", "member", "yes"],
    ]


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


def test_openapi_writes_the_document(
    sqlite_url: str, fake_app: list[Settings | None], tmp_path: Path
) -> None:
    out = tmp_path / "gen" / "openapi.json"

    result = runner.invoke(cli.app, ["openapi", "--out", str(out)])

    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text(encoding="utf-8"))
    assert "/api/health" in document["paths"]
    to_stdout = runner.invoke(cli.app, ["openapi"])
    assert json.loads(to_stdout.stdout) == document


@pytest.mark.parametrize(
    ("variable", "value", "named"),
    [
        ("INTERLOCK_PORT", "abc", "INTERLOCK_PORT: Input should be a valid integer"),
        ("INTERLOCK_PORT", "99999", "INTERLOCK_PORT: Input should be less than or equal to 65535"),
        ("INTERLOCK_MAX_STEPS_PER_TURN", "0", "INTERLOCK_MAX_STEPS_PER_TURN: Input should be"),
        ("INTERLOCK_CONNECTIONS", '{"w": {"headers": 5}}', "INTERLOCK_CONNECTIONS (at w.headers)"),
        ("INTERLOCK_SKILLS_PATH", "notjson", "INTERLOCK_SKILLS_PATH is not valid JSON"),
    ],
)
@pytest.mark.parametrize(
    "command", [["serve"], ["users", "list"], ["db", "current"], ["skills", "check"]]
)
def test_a_bad_setting_is_named_in_words_not_a_traceback(
    sqlite_url: str,
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
    value: str,
    named: str,
    command: list[str],
) -> None:
    monkeypatch.setenv(variable, value)
    monkeypatch.setattr("uvicorn.run", lambda *args, **kwargs: pytest.fail("uvicorn ran"))

    result = runner.invoke(cli.app, command)

    assert result.exit_code == 1, result.output
    assert named in result.stderr and "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


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


def test_users_commands_never_touch_the_working_directory_database(sqlite_url: str) -> None:
    runner.invoke(cli.app, ["users", "create", "ann"])

    database = Database(sqlite_url)
    try:
        assert [u.name for u in list_users(database)] == ["ann"]
    finally:
        database.dispose()
    assert not (Path.cwd() / "var" / "interlock.db-journal").exists()


def test_groups_add_list_remove(sqlite_url: str) -> None:
    for name in ("ann", "bob"):
        assert runner.invoke(cli.app, ["users", "create", name]).exit_code == 0
    assert runner.invoke(cli.app, ["groups", "add", "finance", "ann"]).exit_code == 0
    result = runner.invoke(cli.app, ["groups", "add", "finance", "bob"])
    assert result.exit_code == 0 and "bob is now in group 'finance'" in result.stdout
    again = runner.invoke(cli.app, ["groups", "add", "finance", "bob"])
    assert "already was" in again.stdout
    assert runner.invoke(cli.app, ["groups", "list"]).stdout == "finance: ann, bob\n"
    assert runner.invoke(cli.app, ["groups", "remove", "finance", "ann"]).exit_code == 0
    assert runner.invoke(cli.app, ["groups", "list"]).stdout == "finance: bob\n"
    unknown = runner.invoke(cli.app, ["groups", "add", "finance", "nobody"])
    assert unknown.exit_code == 1 and "No user named 'nobody'" in unknown.stderr
    bad = runner.invoke(cli.app, ["groups", "add", "Fin ance", "bob"])
    assert bad.exit_code == 1 and "group name" in bad.stderr


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
