"""``interlock groups``: groups of users, named in an employee's approvers as ``group:NAME``.

The same operations as :mod:`interlock.storage.groups`, for whoever runs the server: add a
member, remove one, list the groups.
"""

from __future__ import annotations

from typing import Annotated

import typer

from interlock.cli_common import settings_database
from interlock.storage import groups

groups_app = typer.Typer(
    help="Groups of users, named in an employee's approvers as group:NAME.", no_args_is_help=True
)


@groups_app.command("add")
def groups_add(
    group: Annotated[str, typer.Argument(help="Group name (lowercase, digits, '_', '.', '-').")],
    user: Annotated[str, typer.Argument(help="The user's name.")],
) -> None:
    """Add a user to a group (the group exists once it has a member)."""
    with settings_database() as database:
        added = groups.add_member(database, group, user)
    typer.echo(f"{user} {'is now' if added else 'already was'} in group {group!r}.")


@groups_app.command("remove")
def groups_remove(
    group: Annotated[str, typer.Argument(help="Group name.")],
    user: Annotated[str, typer.Argument(help="The user's name.")],
) -> None:
    """Remove a user from a group; takes effect on the next decision."""
    with settings_database() as database:
        removed = groups.remove_member(database, group, user)
    typer.echo(f"{user} {'was removed from' if removed else 'was not in'} group {group!r}.")


@groups_app.command("list")
def groups_list() -> None:
    """List groups and their members."""
    with settings_database() as database:
        found = groups.list_groups(database)
    if not found:
        typer.echo("No groups: add a member with `interlock groups add GROUP USER`.", err=True)
        return
    for name, members in found.items():
        typer.echo(f"{name}: {', '.join(members)}")
