"""Audit records, chained by SHA-256.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 09:55:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    op.create_table(
        "audit_records",
        sa.Column("seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("tool_call_id", sa.String(length=64), nullable=False),
        sa.Column("conversation_id", sa.String(length=64), nullable=False),
        sa.Column("employee", sa.String(length=100), nullable=False),
        sa.Column("tool", sa.String(length=200), nullable=False),
        sa.Column("owner_id", sa.String(length=64), nullable=False),
        sa.Column("decider", sa.String(length=100), nullable=False),
        sa.Column("channel", sa.String(length=20), nullable=False),
        sa.Column("outcome", sa.String(length=20), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("proposed_args", sa.JSON(), nullable=True),
        sa.Column("executed_args", sa.JSON(), nullable=True),
        sa.Column("waited_ms", sa.Integer(), nullable=False),
        sa.Column("prev_hash", sa.String(length=64), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.PrimaryKeyConstraint("seq"),
        sa.UniqueConstraint("hash"),
    )
    op.create_index("ix_audit_records_created_at", "audit_records", ["created_at"])
    op.create_index("ix_audit_records_tool_call_id", "audit_records", ["tool_call_id"])
    op.create_index("ix_audit_records_employee", "audit_records", ["employee"])
    op.create_index("ix_audit_records_decider", "audit_records", ["decider"])
    op.create_index("ix_audit_records_tool_created", "audit_records", ["tool", "created_at"])
    op.create_index("ix_audit_records_owner_created", "audit_records", ["owner_id", "created_at"])


def downgrade() -> None:
    """Downgrade the schema."""
    op.drop_table("audit_records")
