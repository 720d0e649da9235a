"""Confirmations and result sizes on tool calls; whole tool outputs kept apart.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 10:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.add_column(sa.Column("confirmation", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("result_chars", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("result_cut", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_table(
        "tool_outputs",
        sa.Column("tool_call_id", sa.String(length=64), nullable=False),
        sa.Column("conversation_id", sa.String(length=64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("tool_call_id"),
    )
    op.create_index(
        op.f("ix_tool_outputs_conversation_id"), "tool_outputs", ["conversation_id"], unique=False
    )


def downgrade() -> None:
    """Downgrade the schema."""
    op.drop_index(op.f("ix_tool_outputs_conversation_id"), table_name="tool_outputs")
    op.drop_table("tool_outputs")
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.drop_column("result_cut")
        batch_op.drop_column("result_chars")
        batch_op.drop_column("confirmation")
