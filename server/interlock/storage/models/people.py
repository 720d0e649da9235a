"""People: users, their access tokens, and the groups that decide together."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from interlock.storage.models.common import (
    Role,
    TokenScope,
    new_id,
    utcnow,
)

FOLDED_NAME_LENGTH = 600
"""Room for a 200-character name case-folded (a character folds to at most three: "ΐ")."""


def fold_name(name: str) -> str:
    """A user name as names are compared, regardless of upper and lower case (``"Ann"`` and
    ``"ANN"`` both give ``"ann"``, ``"Straße"`` gives ``"strasse"``)."""
    return name.casefold()


class User(SQLModel, table=True):
    """A person who signs in.

    ``folded_name`` is :func:`fold_name` of ``name``, unique: two users whose names differ
    only in case cannot both be stored, whoever inserts first. It is None only for a later
    one of such names stored before the rule (migration 0023 kept the oldest's), which is
    then found by its exact name alone.
    """

    __tablename__ = "users"

    id: str = Field(default_factory=lambda: new_id("user"), primary_key=True)
    name: str = Field(index=True, unique=True, max_length=200)
    folded_name: str | None = Field(
        default=None, index=True, unique=True, max_length=FOLDED_NAME_LENGTH
    )
    role: str = Field(default=Role.member, max_length=20)
    token_hash: str | None = Field(default=None, index=True, max_length=128)
    created_at: datetime = Field(default_factory=utcnow)


class AccessToken(SQLModel, table=True):
    """An extra bearer token of a user, limited to a scope (see ``interlock.storage.tokens``).

    Only the token's SHA-256 hex digest is stored; the token is shown once, when created.
    """

    __tablename__ = "access_tokens"

    id: str = Field(default_factory=lambda: new_id("tok"), primary_key=True)
    user_id: str = Field(index=True, max_length=64)
    name: str = Field(max_length=100)
    scope: str = Field(default=TokenScope.mcp, max_length=20)
    token_hash: str = Field(index=True, unique=True, max_length=128)
    created_at: datetime = Field(default_factory=utcnow)
    last_used_at: datetime | None = None
    revoked_at: datetime | None = None


class GroupMember(SQLModel, table=True):
    """A user's membership of a named group (groups exist through their members)."""

    __tablename__ = "group_members"

    group: str = Field(primary_key=True, max_length=100)
    user_id: str = Field(primary_key=True, max_length=64, index=True)
    created_at: datetime = Field(default_factory=utcnow)
