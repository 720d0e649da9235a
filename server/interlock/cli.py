"""The ``interlock`` command: serve the app, migrate the database, manage users, check skills.

Every command reads :class:`~interlock.settings.Settings` once (environment variables
``INTERLOCK_*`` and ``.env``) and passes it on; options given on the command line win.
"""

from __future__ import annotations

import functools
import gc
import ipaddress
import json
import os
from pathlib import Path
from typing import Annotated

import typer
from sqlalchemy.engine import make_url

from interlock.audit import verify_chain
from interlock.cli_common import database_url as database_url_of
from interlock.cli_common import (
    fail,
    load_settings,
    reaching_database,
    settings_database,
)
from interlock.cli_groups import groups_app
from interlock.cli_ports import authority, refuse_a_taken_port
from interlock.cli_skills import skills_app
from interlock.cli_tokens import tokens_app
from interlock.errors import Conflict
from interlock.settings import Settings, safe_database_url
from interlock.storage import migrate
from interlock.storage.db import Database
from interlock.storage.models import Role
from interlock.storage.users import count_users, create_user, list_users, new_token

app = typer.Typer(
    help="Interlock: chat with AI employees that ask before they act.",
    no_args_is_help=True,
    add_completion=False,
)
db_app = typer.Typer(help="Database migrations.", no_args_is_help=True)
users_app = typer.Typer(help="Users and their bearer tokens.", no_args_is_help=True)
audit_app = typer.Typer(help="The audit log of decisions and outcomes.", no_args_is_help=True)
app.add_typer(db_app, name="db")
app.add_typer(users_app, name="users")
app.add_typer(skills_app, name="skills")
app.add_typer(audit_app, name="audit")
app.add_typer(groups_app, name="groups")
app.add_typer(tokens_app, name="tokens")

WORKER_START_TIMEOUT_S = 60
KEEP_ALIVE_S = 75
"""Seconds uvicorn keeps an idle keep-alive connection open (uvicorn's default is 5).

Longer than clients and proxies keep theirs (httpx and the MCP SDK: 5 s, aiohttp 15 s, nginx
and load balancers 60 s), so the client always closes an idle connection first. With equal
times a client could send a request on a pooled connection just as the server's timer closed
it unread: the client saw ``httpx.ReadError`` (connection reset) on a request the server never
read, for example opening an event stream on a loaded machine (case C15)."""

DatabaseUrlOption = Annotated[
    str | None,
    typer.Option("--database-url", help="SQLAlchemy URL; default: INTERLOCK_DATABASE_URL."),
]


def is_loopback_host(host: str) -> bool:
    """Return whether binding ``host`` only accepts connections from this machine.

    Args:
        host: Interface name or address, e.g. ``127.0.0.1``, ``::1``, ``localhost``, ``0.0.0.0``.
    """
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _safe_url(url: str) -> str:
    """Return ``url`` with any password masked, for printing."""
    return safe_database_url(url)


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Interface to bind; default: settings.")] = None,
    port: Annotated[
        int | None, typer.Option(min=1, max=65535, help="TCP port; default: settings.")
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            min=1, help="Worker processes on the one port (more than 1 needs PostgreSQL)."
        ),
    ] = 1,
) -> None:
    """Apply the migrations, then serve the API and the web client with uvicorn.

    With `--workers N` uvicorn runs N processes sharing the port; each reads the settings
    from the environment (the `--host`/`--port` given here are passed on to them).
    """
    # No garbage collection while importing and starting: the app's lifespan freezes what
    # start-up leaves and turns the collector back on (api.app.freeze_startup_objects).
    gc.disable()
    try:
        _serve(host, port, workers)
    finally:
        gc.enable()  # a refusal, a failed start or the end of serving


def _refuse_a_second_sqlite_server(settings: Settings) -> None:
    """Fail before serving when another live process serves this SQLite database."""
    from interlock.engine.workers import live_sqlite_server, sqlite_in_use_text

    database = Database(settings.database_url)
    try:
        with database.session() as session:
            other = live_sqlite_server(session, settings.run_lease_s)
    finally:
        database.dispose()
    if other is not None:
        raise fail(sqlite_in_use_text(other, _safe_url(settings.database_url)))


def _serve(host: str | None, port: int | None, workers: int) -> None:
    import uvicorn

    from interlock.api.app import create_app

    settings = load_settings()
    updates: dict[str, object] = {}
    if host is not None:
        updates["host"] = host
    if port is not None:
        updates["port"] = port
    # The app is told the real bind address: it decides the implied local user from it.
    settings = settings.model_copy(update=updates)
    if workers > 1 and make_url(settings.database_url).get_backend_name() == "sqlite":
        raise fail(
            f"--workers {workers} needs PostgreSQL: SQLite takes one writing process at a time. "
            "Set INTERLOCK_DATABASE_URL=postgresql+psycopg://user@host/db, or serve one worker."
        )

    refuse_a_taken_port(settings.host, settings.port)  # before migrations and recovery
    with reaching_database(settings.database_url):
        _prepare_database(settings)
    if not settings.client_dist.is_dir():
        typer.secho(
            f"note: no web client at {settings.client_dist} (build it with `make run`); "
            "the API is served anyway.",
            err=True,
        )
    typer.echo(
        f"Interlock on http://{authority(settings.host, settings.port)} "
        f"(database {_safe_url(settings.database_url)}, "
        f"model {settings.model or 'offline'})",
        err=True,
    )
    if workers > 1:
        gc.enable()  # this process only supervises; each worker starts (and collects) anew
        # Worker processes import the app and read their settings from the environment.
        os.environ["INTERLOCK_HOST"] = settings.host
        os.environ["INTERLOCK_PORT"] = str(settings.port)
        uvicorn.run(
            "interlock.api.app:create_app",
            factory=True,
            host=settings.host,
            port=settings.port,
            workers=workers,
            # A worker imports LangChain and loads the skills before it answers the
            # supervisor's health checks: give a busy machine time.
            timeout_worker_healthcheck=WORKER_START_TIMEOUT_S,
            timeout_graceful_shutdown=settings.shutdown_grace_s,
            timeout_keep_alive=KEEP_ALIVE_S,
        )
        return
    uvicorn.run(
        functools.partial(create_app, settings),
        factory=True,
        host=settings.host,
        port=settings.port,
        # Bounded stop: a stream or an MCP call waiting for a decision that does not close
        # when asked is cancelled after this many seconds (the lifespan shutdown then runs).
        timeout_graceful_shutdown=settings.shutdown_grace_s,
        timeout_keep_alive=KEEP_ALIVE_S,
    )


def _prepare_database(settings: Settings) -> None:
    """Migrate; refuse a second server on one SQLite file; warn when no one can sign in."""
    migrate.upgrade(settings.database_url)
    if make_url(settings.database_url).get_backend_name() == "sqlite":
        _refuse_a_second_sqlite_server(settings)
    if not is_loopback_host(settings.host):
        database = Database(settings.database_url)
        try:
            users = count_users(database)
        finally:
            database.dispose()
        if users == 0:
            typer.secho(
                f"warning: {settings.host} is not a loopback address and no user exists, so no "
                "one can sign in; create one with `interlock users create NAME`.",
                err=True,
                fg=typer.colors.YELLOW,
            )


@app.command()
def openapi(
    out: Annotated[
        Path | None, typer.Option("--out", help="File to write; default: standard output.")
    ] = None,
) -> None:
    """Write the API's OpenAPI document as JSON (the web client generates its types from it)."""
    from interlock.api.app import create_app

    document = create_app(load_settings()).openapi()
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    if out is None:
        typer.echo(text, nl=False)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    typer.echo(f"Wrote {out}", err=True)


@db_app.command("upgrade")
def db_upgrade(database_url: DatabaseUrlOption = None) -> None:
    """Apply every migration not applied yet (does nothing on a current database)."""
    url = database_url_of(database_url)
    with reaching_database(url, from_option=database_url is not None):
        migrate.upgrade(url)
        revision = migrate.current_revision(url)
    typer.echo(f"{_safe_url(url)} is at revision {revision} (head)")


@db_app.command("current")
def db_current(database_url: DatabaseUrlOption = None) -> None:
    """Print the database's revision, or `none` when it was never migrated."""
    url = database_url_of(database_url)
    with reaching_database(url, from_option=database_url is not None):
        current = migrate.current_revision(url)
    head = migrate.head_revision()
    typer.echo(f"{current or 'none'}{' (head)' if current == head else f' (head is {head})'}")


@db_app.command("revision")
def db_revision(
    message: Annotated[str, typer.Option("--message", "-m", help="What the revision does.")],
    database_url: DatabaseUrlOption = None,
    empty: Annotated[bool, typer.Option(help="Write an empty script, no autogenerate.")] = False,
) -> None:
    """Autogenerate a revision from the models against a scratch database (migrated first)."""
    url = database_url_of(database_url)
    with reaching_database(url, from_option=database_url is not None):
        migrate.upgrade(url)
        path = migrate.revision(url, message, autogenerate=not empty)
    typer.echo(f"Wrote {path}; review it before committing.")


@audit_app.command("verify")
def audit_verify(
    database_url: DatabaseUrlOption = None,
    expect_head: Annotated[
        str | None,
        typer.Option(
            help="A head printed by an earlier verify (<records>:<hash>): exit 1 when its "
            "record is gone or changed (the newest records deleted, say).",
            show_default=False,
        ),
    ] = None,
    head_file: Annotated[
        Path | None,
        typer.Option(
            help="A file kept outside the database: compare with the head in it (when it "
            "exists), then write the new head to it once the log verifies.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Recompute the audit log's SHA-256 chain; exit 1 when a record was changed or removed.

    Prints the head (record count and last hash). A chain alone cannot show its newest records
    deleted: keep the head outside the database and pass it back with --expect-head or
    --head-file.
    """
    from interlock.audit.head import check_head, parse_head

    expected: list[tuple[str, tuple[int, str]]] = []
    try:
        if expect_head is not None:
            expected.append(("--expect-head", parse_head(expect_head)))
        if head_file is not None and head_file.exists():
            expected.append((str(head_file), parse_head(head_file.read_text(encoding="utf-8"))))
    except (OSError, ValueError) as exc:
        raise fail(str(exc)) from None
    url = database_url_of(database_url)
    with reaching_database(url, from_option=database_url is not None):
        database = Database(url)
        try:
            with database.session() as session:
                report = verify_chain(session)
                problems = [
                    (where, said)
                    for where, head in expected
                    if report.ok and (said := check_head(session, report, head)) is not None
                ]
        finally:
            database.dispose()
    if not report.ok:
        raise fail(
            f"audit record {report.first_bad_seq} does not verify: {report.problem} "
            f"({report.records} records checked)"
        )
    if problems:
        where, said = problems[0]
        raise fail(f"the audit log does not match the head of {where}: {said}")
    typer.echo(f"The audit log verifies: {report.records} records, chain intact.")
    typer.echo(f"Head: {report.head}")
    if head_file is not None:
        try:
            head_file.write_text(report.head + "\n", encoding="utf-8")
        except OSError as exc:
            raise fail(f"cannot write the head to {head_file}: {exc}") from None
        typer.echo(f"Head written to {head_file}.")


@users_app.command("create")
def users_create(
    name: Annotated[str, typer.Argument(help="Unique user name.")],
    role: Annotated[Role, typer.Option(case_sensitive=False, help="Role.")] = Role.member,
) -> None:
    """Create a user and print its bearer token, the only time it is shown.

    The token alone goes to standard output (`TOKEN=$(interlock users create ann)`), the rest
    to standard error.
    """
    with settings_database() as database:
        try:
            user, token = create_user(database, name, role=role)
        except Conflict as exc:
            if exc.details:  # another user's name, in other case: no token of theirs helps
                raise fail(exc.message) from None
            hint = f"`interlock users token {name.strip()}` gives that user a new token."
            raise fail(f"{exc.message} {hint}") from None
    typer.echo(
        f"Created user {user.name!r} (role {user.role}, id {user.id}). "
        "Its token, shown only this once:",
        err=True,
    )
    typer.echo(token)


@users_app.command("token")
def users_token(
    name: Annotated[str, typer.Argument(help="An existing user's name.")],
) -> None:
    """Give a user a new bearer token (the old one stops working) and print it, once.

    For a lost token, and for the implied user `local` once other users exist: its
    conversations stay its own, reached with this token. Standard output gets the token alone.
    """
    with settings_database() as database:
        user, token = new_token(database, name)
    typer.echo(
        f"New token for {user.name!r} (role {user.role}), shown only this once; "
        "a token it had before no longer works:",
        err=True,
    )
    typer.echo(token)


@users_app.command("list")
def users_list() -> None:
    """List users: id, name, role, whether they have a token, creation time."""
    with settings_database() as database:
        users = list_users(database)
    if not users:
        typer.echo("No users: loopback clients act as the implied local user.", err=True)
        return
    rows = [("ID", "NAME", "ROLE", "TOKEN", "CREATED")]
    rows += [
        (
            u.id,
            u.name,
            str(u.role),
            "yes" if u.token_hash else "no",
            u.created_at.isoformat(timespec="seconds"),
        )
        for u in users
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        typer.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
