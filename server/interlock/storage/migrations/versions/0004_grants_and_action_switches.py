"""Oversight: "don't ask again" grants, the "AI actions" switch, the grant a call ran under.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 10:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    op.create_table(
        "action_switches",
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("employee", sa.String(length=100), nullable=False),
        sa.Column("on_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("changed_by", sa.String(length=20), nullable=False),
        sa.Column("changed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("user_id", "employee"),
    )
    op.create_table(
        "grants",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("employee", sa.String(length=100), nullable=False),
        sa.Column("tool", sa.String(length=200), nullable=False),
        sa.Column("scope", sa.String(length=20), nullable=False),
        sa.Column("conversation_id", sa.String(length=64), nullable=True),
        sa.Column("args", sa.JSON(), nullable=True),
        sa.Column("args_key", sa.Text(), nullable=True),
        sa.Column("schema_hash", sa.String(length=64), nullable=False),
        sa.Column("source_call_id", sa.String(length=64), nullable=True),
        sa.Column("uses", sa.Integer(), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index(
        "ix_grants_user_employee_tool", "grants", ["user_id", "employee", "tool"], unique=False
    )
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.add_column(sa.Column("grant_id", sa.String(length=64), nullable=True))


def downgrade() -> None:
    """Downgrade the schema."""
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.drop_column("grant_id")
    op.drop_index("ix_grants_user_employee_tool", table_name="grants")
    op.drop_table("grants")
    op.drop_table("action_switches")
