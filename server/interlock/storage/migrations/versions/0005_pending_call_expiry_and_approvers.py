"""Oversight: pending calls expire, approvers, several approvals per call, groups.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 10:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    with op.batch_alter_table("tool_calls") as batch:
        batch.add_column(sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(
            sa.Column("approvals_required", sa.Integer(), nullable=False, server_default="1")
        )
        batch.add_column(
            sa.Column("require_approver", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_index("ix_tool_calls_expires_at", ["expires_at"], unique=False)
    with op.batch_alter_table("employees") as batch:
        batch.add_column(sa.Column("approvers", sa.JSON(), nullable=False, server_default="[]"))
        batch.add_column(sa.Column("approval_timeout_s", sa.Float(), nullable=True))
        batch.add_column(
            sa.Column("tool_approvals", sa.JSON(), nullable=False, server_default="{}")
        )
    op.create_table(
        "tool_call_approvals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tool_call_id", sa.String(length=64), nullable=False),
        sa.Column("conversation_id", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tool_call_id", "user_id", name="uq_tool_call_approvals_call_user"),
    )
    op.create_index(
        "ix_tool_call_approvals_tool_call_id",
        "tool_call_approvals",
        ["tool_call_id"],
        unique=False,
    )
    op.create_index(
        "ix_tool_call_approvals_conversation_id",
        "tool_call_approvals",
        ["conversation_id"],
        unique=False,
    )
    op.create_table(
        "group_members",
        sa.Column("group", sa.String(length=100), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("group", "user_id"),
    )
    op.create_index("ix_group_members_user_id", "group_members", ["user_id"], unique=False)


def downgrade() -> None:
    """Downgrade the schema."""
    op.drop_index("ix_group_members_user_id", table_name="group_members")
    op.drop_table("group_members")
    op.drop_index("ix_tool_call_approvals_conversation_id", table_name="tool_call_approvals")
    op.drop_index("ix_tool_call_approvals_tool_call_id", table_name="tool_call_approvals")
    op.drop_table("tool_call_approvals")
    with op.batch_alter_table("employees") as batch:
        batch.drop_column("tool_approvals")
        batch.drop_column("approval_timeout_s")
        batch.drop_column("approvers")
    with op.batch_alter_table("tool_calls") as batch:
        batch.drop_index("ix_tool_calls_expires_at")
        batch.drop_column("decided_at")
        batch.drop_column("require_approver")
        batch.drop_column("approvals_required")
        batch.drop_column("expires_at")
