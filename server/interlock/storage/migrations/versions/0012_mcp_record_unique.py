"""One MCP record conversation per person and employee (a partial unique index).

Revision ID: 0012_mcp_record_unique
Revises: 0011_mcp_servers
Create Date: 2026-12-01 13:45:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0012_mcp_record_unique"
down_revision: str | Sequence[str] | None = "0011_mcp_servers"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WHERE = sa.text("channel = 'mcp'")


def upgrade() -> None:
    """Keep the oldest record of each person and employee, then make it unique.

    Two first calls racing could each have made one; the later one's messages, calls and
    events move to the oldest.
    """
    connection = op.get_bind()
    rows = connection.execute(
        sa.text(
            "SELECT id, owner_id, employee FROM conversations WHERE channel = 'mcp' "
            "ORDER BY created_at, id"
        )
    ).all()
    keep: dict[tuple[str, str], str] = {}
    for conversation_id, owner_id, employee in rows:
        first = keep.setdefault((owner_id, employee), conversation_id)
        if first != conversation_id:
            for table in (
                "messages",
                "tool_calls",
                "decisions",
                "tool_outputs",
                "tool_call_approvals",
            ):
                connection.execute(
                    sa.text(
                        f"UPDATE {table} SET conversation_id = :keep WHERE conversation_id = :gone"
                    ),
                    {"keep": first, "gone": conversation_id},
                )
            connection.execute(
                sa.text("DELETE FROM events WHERE conversation_id = :gone"),
                {"gone": conversation_id},
            )
            connection.execute(
                sa.text("DELETE FROM conversations WHERE id = :gone"), {"gone": conversation_id}
            )
    op.create_index(
        "uq_conversations_mcp_record",
        "conversations",
        ["owner_id", "employee"],
        unique=True,
        sqlite_where=WHERE,
        postgresql_where=WHERE,
    )


def downgrade() -> None:
    """Drop the index."""
    op.drop_index("uq_conversations_mcp_record", table_name="conversations")
