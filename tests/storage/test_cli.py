"""The ``interlock`` command: db, users, groups and openapi (the app stubbed).

``interlock serve``: ``test_cli_serve``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from interlock import cli
from interlock.settings import Settings
from interlock.storage import Database, migrate
from interlock.storage.users import get_or_create_local_user, list_users, user_by_token

runner = CliRunner()


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


def test_a_user_name_differing_only_in_case_is_refused(sqlite_url: str) -> None:
    """``ann`` then ``ANN`` once made two users, while approvers named "ANN" meant a third
    person's name: names are one regardless of case, and lookups ignore case too."""
    assert runner.invoke(cli.app, ["users", "create", "ann"]).exit_code == 0

    result = runner.invoke(cli.app, ["users", "create", "ANN"])
    token = runner.invoke(cli.app, ["users", "token", "Ann"])

    assert result.exit_code == 1, result.output
    assert result.stderr.startswith("error: The user name 'ANN' is taken by 'ann': names that")
    assert "interlock users token" not in result.stderr
    assert token.exit_code == 0 and "New token for 'ann'" in token.stderr
    assert [u.name for u in _users(sqlite_url) if u.name != "local"] == ["ann"]


def _users(url: str) -> list[Any]:
    database = Database(url)
    try:
        return list_users(database)
    finally:
        database.dispose()


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
        # A database URL was only read when first used: a 59-line traceback (ArgumentError),
        # and MySQL a ModuleNotFoundError (MySQLdb) at start-up.
        ("INTERLOCK_DATABASE_URL", "not a url", "INTERLOCK_DATABASE_URL: not a url is not a"),
        ("INTERLOCK_DATABASE_URL", "mysql://u:pw@x/y", "mysql://u:***@x/y names the database"),
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


@pytest.mark.parametrize(
    "command",
    [
        ["serve"],
        ["users", "list"],
        ["users", "create", "ann"],
        ["db", "current"],
        ["db", "upgrade"],
        ["audit", "verify"],
    ],
)
def test_a_database_that_cannot_be_opened_is_one_line_naming_the_setting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    """A server that refuses (or a database that does not exist: 442 lines of traceback
    once) ends the command with one line naming INTERLOCK_DATABASE_URL, password hidden."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("INTERLOCK_DATABASE_URL", "postgresql+psycopg://ann:secret@127.0.0.1:1/x")
    monkeypatch.setattr("uvicorn.run", lambda *args, **kwargs: pytest.fail("uvicorn ran"))
    monkeypatch.setattr(cli, "refuse_a_taken_port", lambda host, port: None)

    result = runner.invoke(cli.app, command)

    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.stderr.startswith(
        "error: cannot open the database "
        "INTERLOCK_DATABASE_URL=postgresql+psycopg://ann:***@127.0.0.1:1/x: "
    ), result.stderr
    assert "secret" not in result.output and len(result.stderr.strip().splitlines()) == 1


def test_a_sqlite_file_that_cannot_be_made_and_a_bad_option_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("INTERLOCK_DATABASE_URL", f"sqlite:///{blocker}/sub/x.db")

    made = runner.invoke(cli.app, ["users", "list"])
    option = runner.invoke(cli.app, ["db", "current", "--database-url", "oracle://u:pw@h/d"])
    missing = runner.invoke(
        cli.app, ["db", "current", "--database-url", f"sqlite:///{blocker}/sub/x.db"]
    )

    assert made.exit_code == 1 and "INTERLOCK_DATABASE_URL=sqlite:///" in made.stderr
    assert "its folder cannot be made" in made.stderr
    assert option.exit_code == 1
    assert option.stderr.startswith("error: --database-url oracle://u:***@h/d names the database")
    assert missing.exit_code == 1 and "the database --database-url sqlite:///" in missing.stderr
