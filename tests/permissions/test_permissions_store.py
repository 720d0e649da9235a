"""Grant matching and use at the storage level, on SQLite and PostgreSQL.

The narrowest live grant wins; a revoke committed before a use makes the use fail (the call
then asks); expiry, schema hash and scope are all checked on the server's clock.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from interlock.employees import load_builtin
from interlock.permissions import create_grant, find_grant, revoke_grant, use_grant
from interlock.settings import Settings
from interlock.skills import load_catalog
from interlock.storage import Conversation, Database, Grant
from interlock.storage.models import utcnow
from interlock.tools import ToolRegistry


def _setup(database: Database, settings: Settings) -> tuple[ToolRegistry, Conversation]:
    registry = ToolRegistry()
    load_catalog(registry, [settings.builtin_skills_dir], settings)
    with database.session() as session:
        conversation = Conversation(owner_id="user_a", employee="assistant")
        session.add(conversation)
        session.commit()
    return registry, conversation


def test_the_narrowest_live_grant_covers_a_call(
    database: Database, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings()
    registry, conversation = _setup(database, settings)
    employee = load_builtin()["assistant"]
    tool = registry.get("notes.add")
    assert tool is not None
    soon = utcnow() + timedelta(days=1)
    with database.session() as session:
        made = {
            name: create_grant(
                session,
                registry=registry,
                employee=employee,
                user_id="user_a",
                tool_name="notes.add",
                scope=scope,
                conversation=conversation,
                args=args,
                expires_at=soon,
            ).id
            for name, scope, args in (
                ("employee_any", "employee", None),
                ("conversation_any", "conversation", None),
                ("conversation_exact", "conversation", {"text": "milk"}),
            )
        }
        session.commit()

    def covering(args: dict[str, str], conversation_id: str = conversation.id) -> str | None:
        with database.session() as session:
            grant = find_grant(
                session,
                user_id="user_a",
                employee="assistant",
                conversation_id=conversation_id,
                tool=tool,
                permission="ASK",
                args=args,
            )
            return grant.id if grant else None

    assert covering({"text": "milk"}) == made["conversation_exact"]
    assert covering({"text": "bread"}) == made["conversation_any"]
    assert covering({"text": "bread"}, "conv_other") == made["employee_any"]
    with database.session() as session:
        assert (
            find_grant(
                session,
                user_id="user_b",
                employee="assistant",
                conversation_id=conversation.id,
                tool=tool,
                permission="ASK",
                args={"text": "milk"},
            )
            is None
        )
        assert (
            find_grant(  # never on ALLOW or DENY
                session,
                user_id="user_a",
                employee="assistant",
                conversation_id=conversation.id,
                tool=tool,
                permission="DENY",
                args={"text": "milk"},
            )
            is None
        )


def test_a_revoke_that_commits_first_wins_over_a_use(
    database: Database, make_settings: Callable[..., Settings]
) -> None:
    settings = make_settings()
    registry, conversation = _setup(database, settings)
    employee = load_builtin()["assistant"]
    with database.session() as session:
        grant = create_grant(
            session,
            registry=registry,
            employee=employee,
            user_id="user_a",
            tool_name="notes.add",
            scope="conversation",
            conversation=conversation,
            args=None,
            expires_at=utcnow() + timedelta(hours=1),
        )
        session.commit()
    with database.session() as using:
        assert use_grant(using, grant)
        using.commit()
    with database.session() as revoking:
        assert revoke_grant(revoking, "user_b", grant.id) is None  # not theirs
        assert revoke_grant(revoking, "user_a", grant.id) is not None
        revoking.commit()
    with database.session() as using:
        assert not use_grant(using, grant)
        using.commit()
    with database.session() as session:
        stored = session.get(Grant, grant.id)
        assert stored is not None and stored.uses == 1 and stored.revoked_at is not None
