"""Drop ``ix_runs_owner_id``: no statement reads runs by owner without ``status = 'running'``.

The lease sweep and the takeover read the running runs by owner through ``ix_runs_running``
(migration 0018, a partial index holding only the running runs); every other statement on
``runs`` finds its row by id. ``ix_runs_owner_id`` held one entry per run ever made and was
written on every run's insert and on each step's hold of the run (``UPDATE runs SET
owner_id``): on SQLite 5 of the ~95 pages a HITL turn writes at turn 10, 8 at turn 200 (its
tree grew with the runs).

Revision ID: 0020_drop_runs_owner_ix
Revises: 0019_conversations_message_count
Create Date: 2026-12-02 12:40:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0020_drop_runs_owner_ix"
down_revision: str | Sequence[str] | None = "0019_conversations_message_count"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Drop ``ix_runs_owner_id``."""
    op.drop_index("ix_runs_owner_id", table_name="runs")


def downgrade() -> None:
    """Create ``ix_runs_owner_id`` again."""
    op.create_index("ix_runs_owner_id", "runs", ["owner_id"], unique=False)
