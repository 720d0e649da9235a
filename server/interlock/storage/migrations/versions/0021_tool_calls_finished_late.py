"""``tool_calls.finished_late_at``: a call stopped while its tool ran whose tool returned after all.

Such a call was closed ``failed`` with ``outcome_unknown`` ("it may have happened"); when its
tool returns later, its real outcome is recorded on it once, and this column says when. The
partial index ``ix_tool_calls_finished_late`` holds only those rows: the model's prompt notes
them on every step, and no other call writes an entry.

Revision ID: 0021_tool_calls_finished_late
Revises: 0020_drop_runs_owner_ix
Create Date: 2026-12-03 08:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0021_tool_calls_finished_late"
down_revision: str | Sequence[str] | None = "0020_drop_runs_owner_ix"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WHERE = sa.text("finished_late_at IS NOT NULL")


def upgrade() -> None:
    """Add the column and its partial index."""
    with op.batch_alter_table("tool_calls") as batch_op:
        batch_op.add_column(
            sa.Column("finished_late_at", sa.DateTime(timezone=True), nullable=True)
        )
    op.create_index(
        "ix_tool_calls_finished_late",
        "tool_calls",
        ["conversation_id"],
        unique=False,
        sqlite_where=WHERE,
        postgresql_where=WHERE,
    )


def downgrade() -> None:
    """Drop the index and the column."""
    op.drop_index("ix_tool_calls_finished_late", table_name="tool_calls")
    with op.batch_alter_table("tool_calls") as batch_op:
        batch_op.drop_column("finished_late_at")
