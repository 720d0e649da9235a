"""``tool_calls.finished_late_after``: what a call whose tool returned late was closed as.

A call whose tool ran in a worker thread was closed while it ran, either stopped
(``outcome_unknown``, "it may have happened") or past its timeout (``timeout``, "it is still
running"); when the tool returned, its real outcome was recorded (``finished_late_at``). This
column says which it was, ``stopped`` or ``timeout``, for the person's words ("Happened after
it was stopped" / "Happened after it timed out"). Rows from before this revision are None:
stopped.

Revision ID: 0022_finished_late_after
Revises: 0021_tool_calls_finished_late
Create Date: 2026-12-03 09:40:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0022_finished_late_after"
down_revision: str | Sequence[str] | None = "0021_tool_calls_finished_late"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the column."""
    with op.batch_alter_table("tool_calls") as batch_op:
        batch_op.add_column(sa.Column("finished_late_after", sa.String(length=16), nullable=True))


def downgrade() -> None:
    """Drop the column."""
    with op.batch_alter_table("tool_calls") as batch_op:
        batch_op.drop_column("finished_late_after")
