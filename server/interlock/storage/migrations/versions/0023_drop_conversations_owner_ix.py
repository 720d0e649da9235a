"""Drop ``ix_conversations_owner_id``: ``ix_conversations_owner_updated`` starts with the owner.

``ix_conversations_owner_updated`` (migration 0016) is on ``(owner_id, updated_at, id)``, so
every statement that finds conversations by owner can use it, as it did the index on the
owner alone. That one was written on every conversation's insert and on each update that
moves a row to a new version (a claim of the conversation, its title), about 3.5 times per
HITL cycle on PostgreSQL (bench (d)), for nothing read.

Revision ID: 0023_drop_conversations_owner_ix
Revises: 0022_finished_late_after
Create Date: 2026-12-03 13:47:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0023_drop_conversations_owner_ix"
down_revision: str | Sequence[str] | None = "0022_finished_late_after"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Drop ``ix_conversations_owner_id``."""
    op.drop_index("ix_conversations_owner_id", table_name="conversations")


def downgrade() -> None:
    """Create ``ix_conversations_owner_id`` again."""
    op.create_index("ix_conversations_owner_id", "conversations", ["owner_id"], unique=False)
