"""``conversations.message_count``, kept by the database on every change to ``messages``.

The model step's history cache checks its cached prefix against storage with it: one read by
primary key instead of counting the conversation's messages up to the prefix (a count that grew
with the conversation: on SQLite ~200 VM instructions at turn 10, ~2,400 at turn 200). Triggers
keep it, so every insert, delete or move of a message counts, whoever writes it; on PostgreSQL
they run at commit (deferred), when the event bus has already locked the conversation's row, so
no transaction takes that lock earlier than before.

Revision ID: 0019_conversations_message_count
Revises: 0018_runs_running_ix
Create Date: 2026-12-02 08:20:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0019_conversations_message_count"
down_revision: str | Sequence[str] | None = "0018_runs_running_ix"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ADD = "UPDATE conversations SET message_count = message_count + 1 WHERE id = NEW.conversation_id;"
_REMOVE = (
    "UPDATE conversations SET message_count = message_count - 1 WHERE id = OLD.conversation_id;"
)

_SQLITE_TRIGGERS = (
    f"CREATE TRIGGER messages_count_insert AFTER INSERT ON messages BEGIN {_ADD} END",
    f"CREATE TRIGGER messages_count_delete AFTER DELETE ON messages BEGIN {_REMOVE} END",
    "CREATE TRIGGER messages_count_move AFTER UPDATE OF conversation_id ON messages "
    f"BEGIN {_REMOVE} {_ADD} END",
)
_PG_FUNCTION = f"""
CREATE FUNCTION interlock_count_messages() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'INSERT' THEN {_REMOVE} END IF;
    IF TG_OP <> 'DELETE' THEN {_ADD} END IF;
    RETURN NULL;
END
$$
"""
_PG_TRIGGER = (
    "CREATE CONSTRAINT TRIGGER messages_count "
    "AFTER INSERT OR DELETE OR UPDATE OF conversation_id ON messages "
    "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION interlock_count_messages()"
)


def upgrade() -> None:
    """Add ``message_count``, fill it from the stored messages, and add the triggers."""
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("message_count", sa.Integer(), nullable=False, server_default="0")
        )
    op.execute(
        "UPDATE conversations SET message_count = "
        "(SELECT count(*) FROM messages WHERE messages.conversation_id = conversations.id)"
    )
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PG_FUNCTION)
        op.execute(_PG_TRIGGER)
    else:
        for statement in _SQLITE_TRIGGERS:
            op.execute(statement)


def downgrade() -> None:
    """Drop the triggers and the column."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER messages_count ON messages")
        op.execute("DROP FUNCTION interlock_count_messages()")
    else:
        for name in ("insert", "delete", "move"):
            op.execute(f"DROP TRIGGER messages_count_{name}")
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.drop_column("message_count")
