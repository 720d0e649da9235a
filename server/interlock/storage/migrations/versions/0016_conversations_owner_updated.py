"""An index for the keyset pages of a person's conversations (latest activity first).

Revision ID: 0016_conversations_owner_updated
Revises: 0015_audit_record_kind
Create Date: 2026-12-01 20:05:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0016_conversations_owner_updated"
down_revision: str | Sequence[str] | None = "0015_audit_record_kind"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``ix_conversations_owner_updated`` on ``(owner_id, updated_at, id)``."""
    op.create_index(
        "ix_conversations_owner_updated",
        "conversations",
        ["owner_id", "updated_at", "id"],
        unique=False,
    )


def downgrade() -> None:
    """Drop the index."""
    op.drop_index("ix_conversations_owner_updated", table_name="conversations")
