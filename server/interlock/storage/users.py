"""Users and their bearer tokens.

A token is shown once, when the user is created (``interlock users create NAME``) or given a
new one (``interlock users token NAME``, which also lets the implied local user sign in once
other users exist); only its SHA-256 hex digest is stored, so a lookup by token is a lookup by
digest and needs no constant-time comparison.

With no users and a loopback bind, the API acts as the implied local user ``local`` (role
admin, no token), created on first use by :func:`get_or_create_local_user`. That user is not
counted by :func:`count_users`, so the implied mode lasts until a real user is created.

Every function takes either a :class:`~interlock.storage.db.Database` (it opens its own session
and commits) or an open :class:`~sqlmodel.Session` (it flushes; committing is the caller's). No
savepoints are used: with SQLite's Python driver a SAVEPOINT opening a transaction commits on
release, so they would break the caller's transaction.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from sqlalchemy import func
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from interlock.errors import BadRequest, Conflict, NotFound
from interlock.storage.db import Database
from interlock.storage.models import Role, User
from interlock.storage.models.people import fold_name
from interlock.text import name_problem, name_rule

LOCAL_USER_NAME = "local"
GROUP_PREFIX = "group:"
"""How an employee's approvers name a group; no user name starts with it."""
TOKEN_BYTES = 32
MAX_NAME_LENGTH = 200

DatabaseOrSession = Database | Session


def hash_token(token: str) -> str:
    """Return the stored form of ``token``: its SHA-256 digest as 64 hex digits."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_user(db: DatabaseOrSession, name: str, role: str = Role.member) -> tuple[User, str]:
    """Create a user with a new bearer token.

    Args:
        db: Database (committed here) or open session (flushed; the caller commits).
        name: Unique name, 1 to 200 characters, surrounding spaces removed.
        role: ``admin`` or ``member``.

    Returns:
        The stored user and the token in clear, which is not kept anywhere.

    Raises:
        BadRequest: The name is empty or too long, is not one line of visible characters
            (line breaks, tabs, control or invisible characters, runs of spaces), starts with
            ``group:``, or the role is unknown.
        Conflict: A user with that name exists (code ``user_exists``). In a caller's session,
            when the name was taken concurrently after the check, the session then needs a
            rollback.
    """
    name = name.strip()
    if not name or len(name) > MAX_NAME_LENGTH:
        raise BadRequest(f"A user name has 1 to {MAX_NAME_LENGTH} characters.")
    if name_problem(name, "A user name") or name.startswith(GROUP_PREFIX):
        # Shown on cards, in the Audit page, its CSV and `users list` (a terminal), and
        # named in an employee's approvers, where "group:" starts a group.
        rule = name_rule("A user name").removesuffix(".")
        raise BadRequest(f"{rule}, and not starting with '{GROUP_PREFIX}'.")
    if role not in {r.value for r in Role}:
        raise BadRequest(f"Unknown role {role!r}: use one of {', '.join(r.value for r in Role)}.")
    with _session(db) as session:
        taken = user_named(session, name)
        if taken is not None:
            raise _taken(name, taken.name)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    user = User(
        name=name, folded_name=fold_name(name), role=Role(role), token_hash=hash_token(token)
    )
    try:
        _insert(db, user)
    except IntegrityError as exc:
        # Created concurrently since the check: the unique indexes on the name and on the
        # folded name refuse the second, whichever spelling it has.
        taken_by = None
        if not isinstance(db, Session):  # a caller's session needs a rollback first
            with _session(db) as session:
                winner = user_named(session, name)
                taken_by = winner.name if winner is not None else None
        raise _taken(name, taken_by) from exc
    return user, token


def _taken(name: str, taken_by: str | None) -> Conflict:
    """The ``user_exists`` conflict of ``name``, taken by the user named ``taken_by``."""
    if taken_by is not None and taken_by != name:
        # Approvers and the audit filter name people regardless of case: "ANN" and "ann"
        # would be one name for two people.
        return Conflict(
            f"The user name {name!r} is taken by {taken_by!r}: names that differ only "
            "in upper and lower case count as the same name. Choose another name.",
            code="user_exists",
            details={"taken_by": taken_by},
        )
    return Conflict(f"A user named {name!r} already exists.", code="user_exists")


def new_token(db: DatabaseOrSession, name: str) -> tuple[User, str]:
    """Give the user named ``name`` a new bearer token; the one it had stops working.

    This is how a person who lost their token gets back in, and how the implied local user
    (no token) keeps its conversations once other users exist and loopback clients must sign in.

    Args:
        db: Database (committed here) or open session (flushed; the caller commits).
        name: The user's name, surrounding spaces removed.

    Returns:
        The user and the new token in clear, which is not kept anywhere.

    Raises:
        NotFound: No user has that name (code ``not_found``).
    """
    name = name.strip()
    token = secrets.token_urlsafe(TOKEN_BYTES)
    with _session(db) as session:
        user = _user_named(session, name)
        if user is None:
            raise NotFound(f"There is no user named {name!r} (interlock users list shows them).")
        user.token_hash = hash_token(token)
        session.add(user)
    return user, token


def user_by_token(db: DatabaseOrSession, token: str) -> User | None:
    """Return the user holding ``token``, or ``None`` for an unknown or empty token.

    Args:
        db: Database or open session.
        token: Bearer token as sent by the client.
    """
    if not token:
        return None
    with _session(db) as session:
        return session.exec(select(User).where(User.token_hash == hash_token(token))).first()


def list_users(db: DatabaseOrSession) -> list[User]:
    """Return every user, the implied local user included, oldest first.

    Args:
        db: Database or open session.
    """
    with _session(db) as session:
        statement = select(User).order_by(col(User.created_at), col(User.name))
        return list(session.exec(statement).all())


def existing_user_names(db: DatabaseOrSession, names: set[str]) -> set[str]:
    """Return the names among ``names`` that belong to a user, regardless of case.

    Args:
        db: Database or open session.
        names: User names to look up.
    """
    if not names:
        return set()
    keys = {fold_name(name) for name in names}
    with _session(db) as session:  # regardless of case, as approvers match (same_names)
        found = set(
            session.exec(select(User.folded_name).where(col(User.folded_name).in_(keys))).all()
        )
    return {name for name in names if fold_name(name) in found}


def count_users(db: DatabaseOrSession) -> int:
    """Return how many users can sign in with a token (the implied local user is not one).

    Args:
        db: Database or open session.
    """
    with _session(db) as session:
        statement = select(func.count()).select_from(User).where(col(User.token_hash).is_not(None))
        return int(session.exec(statement).one())


def get_or_create_local_user(db: DatabaseOrSession) -> User:
    """Return the implied local user (``local``, admin, no token), creating it on first use.

    Two concurrent first calls given a database are safe: the loser of the insert reads the
    winner's row. In a caller's session the loser's ``IntegrityError`` propagates (the session
    then needs a rollback), so prefer passing the database.

    Args:
        db: Database (committed here) or open session (flushed; the caller commits).

    Raises:
        IntegrityError: Only in a caller's session, when another caller created it meanwhile.
    """
    with _session(db) as session:
        user = _user_named(session, LOCAL_USER_NAME)
        if user is not None:
            return user
    user = User(name=LOCAL_USER_NAME, folded_name=fold_name(LOCAL_USER_NAME), role=Role.admin)
    try:
        _insert(db, user)
        return user
    except IntegrityError:
        if isinstance(db, Session):
            raise
        with _session(db) as session:
            existing = _user_named(session, LOCAL_USER_NAME)
            if existing is None:  # pragma: no cover - the unique name was taken a moment ago
                raise
            return existing


def user_named(session: Session, name: str) -> User | None:
    """The user named ``name``, regardless of upper and lower case.

    Names are unique regardless of case (the unique ``folded_name`` refuses ``ANN`` beside
    ``ann``), so one user matches; a database from before that rule may hold two such names,
    and then the one written exactly as ``name`` is found (else the oldest, which holds the
    folded name: migration 0023).

    Args:
        session: An open session.
        name: A user name as a person wrote it (an approver entry, a filter, a command).
    """
    exact = session.exec(select(User).where(User.name == name)).first()
    if exact is not None:
        return exact
    # Folded in Python, not SQL: SQLite's lower() folds ASCII letters only.
    return session.exec(select(User).where(User.folded_name == fold_name(name))).first()


def same_names(names: Iterable[str], others: Iterable[str]) -> set[str]:
    """The names among ``names`` that name one of ``others``, regardless of case."""
    keys = {fold_name(other) for other in others}
    return {name for name in names if fold_name(name) in keys}


def _user_named(session: Session, name: str) -> User | None:
    return user_named(session, name)


def _insert(db: DatabaseOrSession, user: User) -> None:
    """Insert ``user`` and flush (and commit, when given a database)."""
    with _session(db) as session:
        session.add(user)


@contextmanager
def _session(db: DatabaseOrSession) -> Iterator[Session]:
    """Yield ``db`` itself when it is a session, else a new session committed on success."""
    if isinstance(db, Session):
        yield db
        db.flush()
        return
    with db.session() as session:
        yield session
        session.commit()
