"""``interlock tokens``: a person's scoped access tokens (MCP tokens) from the command line.

The same operations as ``/api/tokens`` (:mod:`interlock.storage.tokens`), for whoever runs the
server: create one for any user (``local`` in local mode), list, revoke.
"""

from __future__ import annotations

from typing import Annotated

import typer
from sqlmodel import Session, select

from interlock.audit import CLI_DECIDER, Channel, TokenOutcome, record_token_event
from interlock.cli_common import settings_database
from interlock.errors import InterlockError
from interlock.storage import Database, TokenScope, User
from interlock.storage.models import AccessToken
from interlock.storage.tokens import (
    TokenAudit,
    create_access_token,
    list_access_tokens,
    revoke_access_token,
)
from interlock.storage.users import LOCAL_USER_NAME, get_or_create_local_user, user_named
from interlock.text import reveal_hidden

tokens_app = typer.Typer(
    help="Access tokens limited to /mcp, for MCP clients (instead of a person's own token).",
    no_args_is_help=True,
)


def _user_named(database: Database, name: str) -> User:
    if name == LOCAL_USER_NAME:
        return get_or_create_local_user(database)
    with database.session() as session:
        user = user_named(session, name)
    if user is None:
        raise InterlockError(f"No user named {name!r} (see `interlock users list`).")
    return user


@tokens_app.command("create")
def tokens_create(
    user: Annotated[str, typer.Argument(help="The user's name ('local' in local mode).")],
    name: Annotated[
        str, typer.Option("--name", help="What the client is called, e.g. 'Claude Desktop'.")
    ],
    scope: Annotated[TokenScope, typer.Option(case_sensitive=False)] = TokenScope.mcp,
) -> None:
    """Create an MCP token for a user and print it, the only time it is shown.

    The token alone goes to standard output, the rest to standard error.
    """
    with settings_database() as database:
        owner = _user_named(database, user)
        row, token = create_access_token(
            database, owner.id, name, scope, audit=_audited(TokenOutcome.created)
        )
    typer.echo(
        f"Created the MCP token {reveal_hidden(row.name)!r} (id {row.id}) for {owner.name}. "
        "It works at /mcp only; shown only this once:",
        err=True,
    )
    typer.echo(token)


@tokens_app.command("list")
def tokens_list(
    user: Annotated[str | None, typer.Argument(help="Only this user's tokens.")] = None,
) -> None:
    """List access tokens: id, user, name, scope, created, last used, revoked."""
    with settings_database() as database:
        owner_id = _user_named(database, user).id if user is not None else None
        rows = list_access_tokens(database, owner_id)
        with database.session() as session:
            names = {u.id: u.name for u in session.exec(select(User)).all()}
    if not rows:
        typer.echo("No access tokens.", err=True)
        return
    table: list[tuple[str, ...]] = [
        ("ID", "USER", "NAME", "SCOPE", "CREATED", "LAST USED", "REVOKED")
    ]
    table += [_row(row, names.get(row.user_id, row.user_id)) for row in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    for r in table:
        typer.echo("  ".join(cell.ljust(width) for cell, width in zip(r, widths, strict=True)))


def _row(row: AccessToken, owner: str) -> tuple[str, ...]:
    def when(value: object) -> str:
        return value.isoformat(timespec="seconds") if hasattr(value, "isoformat") else "-"

    return (
        row.id,
        owner,
        reveal_hidden(row.name),  # a bidi override shows as [U+202E], not reordering the row
        row.scope,
        when(row.created_at),
        when(row.last_used_at),
        when(row.revoked_at),
    )


@tokens_app.command("revoke")
def tokens_revoke(token_id: Annotated[str, typer.Argument(help="The token's id.")]) -> None:
    """Revoke a token; the next request made with it is refused."""
    with settings_database() as database:
        row = revoke_access_token(database, token_id, audit=_audited(TokenOutcome.revoked))
    typer.echo(f"Revoked the token {reveal_hidden(row.name)!r} ({row.id}).")


def _audited(outcome: TokenOutcome) -> TokenAudit:
    """The audit record of what the operator did (decider ``cli``, channel ``cli``)."""

    def audit(session: Session, row: AccessToken) -> None:
        record_token_event(session, row, decider=CLI_DECIDER, channel=Channel.cli, outcome=outcome)

    return audit
