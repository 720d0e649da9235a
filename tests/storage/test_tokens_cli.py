"""``interlock tokens``: create (token on standard output only), list, revoke; and the stored
form (digest only, revoked tokens unknown)."""

from __future__ import annotations

import hashlib

from sqlmodel import select
from typer.testing import CliRunner

from interlock import cli
from interlock.storage import AccessToken, Database
from interlock.storage.tokens import principal_by_token

runner = CliRunner()


def test_create_list_and_revoke(sqlite_url: str) -> None:
    assert runner.invoke(cli.app, ["users", "create", "ann"]).exit_code == 0
    created = runner.invoke(cli.app, ["tokens", "create", "ann", "--name", "Claude Desktop"])
    assert created.exit_code == 0, created.output
    token = created.stdout.strip()
    assert token.startswith("ilk_mcp_") and "\n" not in token
    assert "shown only this once" in created.stderr
    assert "Created the MCP token 'Claude Desktop'" in created.stderr

    db = Database(sqlite_url)
    try:
        principal = principal_by_token(db, token)
        assert principal is not None
        assert (principal.user.name, principal.scope, principal.token_name) == (
            "ann",
            "mcp",
            "Claude Desktop",
        )
        with db.session() as session:
            stored = session.exec(select(AccessToken.token_hash)).all()
        assert stored == [hashlib.sha256(token.encode()).hexdigest()]

        listed = runner.invoke(cli.app, ["tokens", "list"])
        assert listed.exit_code == 0 and "Claude Desktop" in listed.stdout
        assert token not in listed.stdout
        assert principal.token_id is not None
        revoked = runner.invoke(cli.app, ["tokens", "revoke", principal.token_id])
        assert revoked.exit_code == 0, revoked.output
        assert principal_by_token(db, token) is None
    finally:
        db.dispose()

    unknown = runner.invoke(cli.app, ["tokens", "create", "nobody", "--name", "x"])
    assert unknown.exit_code == 1 and "No user named 'nobody'" in unknown.stderr


def test_local_mode_tokens_belong_to_the_local_user(sqlite_url: str) -> None:
    created = runner.invoke(cli.app, ["tokens", "create", "local", "--name", "Cursor"])
    assert created.exit_code == 0, created.output
    db = Database(sqlite_url)
    try:
        principal = principal_by_token(db, created.stdout.strip())
    finally:
        db.dispose()
    assert principal is not None and principal.user.name == "local"


def test_a_name_with_a_bidi_override_is_kept_and_listed_revealed(sqlite_url: str) -> None:
    """Stored as written; the listing and messages show ``[U+202E]`` instead of obeying it."""
    assert runner.invoke(cli.app, ["users", "create", "ann"]).exit_code == 0
    created = runner.invoke(cli.app, ["tokens", "create", "ann", "--name", "a\u202eb"])
    assert created.exit_code == 0, created.output
    assert "Created the MCP token 'a[U+202E]b'" in created.stderr

    listed = runner.invoke(cli.app, ["tokens", "list"])

    assert "a[U+202E]b" in listed.stdout and "\u202e" not in listed.stdout
    db = Database(sqlite_url)
    try:
        with db.session() as session:
            assert session.exec(select(AccessToken.name)).all() == ["a\u202eb"]
    finally:
        db.dispose()
