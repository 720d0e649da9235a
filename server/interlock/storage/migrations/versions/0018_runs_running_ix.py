"""A partial index of the running runs, so the sweep for runs whose worker is gone reads only them.

Before, ``stale_runs`` (every lease check) scanned the whole ``runs`` table, one row per run
ever made.

Revision ID: 0018_runs_running_ix
Revises: 0017_tool_calls_conversation_ix
Create Date: 2026-12-02 08:20:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0018_runs_running_ix"
down_revision: str | Sequence[str] | None = "0017_tool_calls_conversation_ix"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

WHERE = sa.text("status = 'running'")


def upgrade() -> None:
    """Add ``ix_runs_running`` on ``owner_id`` where ``status = 'running'``."""
    op.create_index(
        "ix_runs_running",
        "runs",
        ["owner_id"],
        unique=False,
        sqlite_where=WHERE,
        postgresql_where=WHERE,
    )


def downgrade() -> None:
    """Drop the index."""
    op.drop_index("ix_runs_running", table_name="runs")
