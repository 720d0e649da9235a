"""Access tokens in storage: lookups by digest, scope, last use, revocation, the limit."""

from __future__ import annotations

from datetime import timedelta

import pytest

from interlock.errors import Conflict, NotFound
from interlock.storage import AccessToken, Database
from interlock.storage.tokens import (
    LAST_USED_RESOLUTION,
    MAX_TOKENS_PER_USER,
    create_access_token,
    principal_by_token,
    revoke_access_token,
)
from interlock.storage.users import create_user


def test_own_and_mcp_tokens_stand_for_their_user(database: Database) -> None:
    ann, own = create_user(database, "ann")
    row, token = create_access_token(database, ann.id, "Claude Desktop")
    mine = principal_by_token(database, own)
    assert mine is not None and (mine.user.id, mine.scope, mine.token_name) == (ann.id, None, None)
    agent = principal_by_token(database, token)
    assert agent is not None
    assert (agent.user.id, agent.scope, agent.token_id) == (ann.id, "mcp", row.id)
    assert principal_by_token(database, token[:-1]) is None
    assert principal_by_token(database, "") is None


def test_last_use_is_written_at_most_once_a_minute(database: Database) -> None:
    ann, _own = create_user(database, "ann")
    row, token = create_access_token(database, ann.id, "Cursor")
    principal_by_token(database, token)
    with database.session() as session:
        first = session.get(AccessToken, row.id)
        assert first is not None and first.last_used_at is not None
        stamp = first.last_used_at
    principal_by_token(database, token)
    with database.session() as session:
        again = session.get(AccessToken, row.id)
        assert again is not None and again.last_used_at == stamp
        again.last_used_at = stamp - LAST_USED_RESOLUTION - timedelta(seconds=1)
        session.add(again)
        session.commit()
    principal_by_token(database, token)
    with database.session() as session:
        later = session.get(AccessToken, row.id)
        assert later is not None and later.last_used_at is not None
        assert later.last_used_at > stamp - LAST_USED_RESOLUTION


def test_revoking_checks_the_owner_and_ends_the_token(database: Database) -> None:
    ann, _a = create_user(database, "ann")
    bob, _b = create_user(database, "bob")
    row, token = create_access_token(database, ann.id, "Cursor")
    with pytest.raises(NotFound):
        revoke_access_token(database, row.id, bob.id)
    assert principal_by_token(database, token) is not None
    revoked = revoke_access_token(database, row.id, ann.id)
    assert revoked.revoked_at is not None
    assert principal_by_token(database, token) is None


def test_live_tokens_are_limited(database: Database) -> None:
    ann, _own = create_user(database, "ann")
    rows = [
        create_access_token(database, ann.id, f"client {i}")[0] for i in range(MAX_TOKENS_PER_USER)
    ]
    with pytest.raises(Conflict) as refused:
        create_access_token(database, ann.id, "one more")
    assert refused.value.code == "too_many_tokens"
    revoke_access_token(database, rows[0].id, ann.id)
    create_access_token(database, ann.id, "one more")
