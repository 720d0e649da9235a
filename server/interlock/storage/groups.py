"""Groups of users, named in an employee's ``approvers`` as ``group:<name>``.

A group exists through its members (``group_members`` rows); there is nothing else to create.
Managed with ``interlock groups add|remove|list``.
"""

from __future__ import annotations

import re

from sqlmodel import col, select

from interlock.errors import BadRequest, NotFound
from interlock.storage.db import Database
from interlock.storage.models import GroupMember, User
from interlock.storage.users import user_named

GROUP_NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,99}$")


def _check_name(group: str) -> None:
    if not GROUP_NAME_RE.match(group):
        raise BadRequest("A group name has 1 to 100 lowercase letters, digits, '_', '.' or '-'.")


def _user_named(db: Database, name: str) -> User:
    with db.session() as session:
        user = user_named(session, name)
    if user is None:
        raise NotFound(f"No user named {name!r}.")
    return user


def add_member(db: Database, group: str, user_name: str) -> bool:
    """Add the user named ``user_name`` to ``group``.

    Returns:
        False when the user already was a member.

    Raises:
        BadRequest: A malformed group name.
        NotFound: No such user.
    """
    _check_name(group)
    user = _user_named(db, user_name)
    with db.session() as session:
        if session.get(GroupMember, (group, user.id)) is not None:
            return False
        session.add(GroupMember(group=group, user_id=user.id))
        session.commit()
    return True


def remove_member(db: Database, group: str, user_name: str) -> bool:
    """Remove the user named ``user_name`` from ``group``; False when not a member.

    Raises:
        NotFound: No such user.
    """
    user = _user_named(db, user_name)
    with db.session() as session:
        row = session.get(GroupMember, (group, user.id))
        if row is None:
            return False
        session.delete(row)
        session.commit()
    return True


def list_groups(db: Database) -> dict[str, list[str]]:
    """Return ``{group: [user names, sorted]}`` for every group, sorted by name."""
    with db.session() as session:
        rows = session.exec(
            select(GroupMember.group, User.name)
            .join(User, col(User.id) == col(GroupMember.user_id))
            .order_by(col(GroupMember.group), col(User.name))
        ).all()
    groups: dict[str, list[str]] = {}
    for group, name in rows:
        groups.setdefault(group, []).append(name)
    return groups


def existing_groups(db: Database, groups: set[str]) -> set[str]:
    """Return the names among ``groups`` that have at least one member."""
    if not groups:
        return set()
    with db.session() as session:
        rows = session.exec(
            select(GroupMember.group).where(col(GroupMember.group).in_(sorted(groups))).distinct()
        ).all()
    return set(rows)
