"""Calls from MCP clients: a conversation's channel and the client named on each call.

Revision ID: 0010_mcp_calls
Revises: 0009
Create Date: 2026-12-01 13:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0010_mcp_calls"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``conversations.channel`` (``chat`` | ``mcp``) and ``tool_calls.client_name``."""
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("channel", sa.String(length=20), nullable=False, server_default="chat")
        )
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.add_column(sa.Column("client_name", sa.String(length=200), nullable=True))


def downgrade() -> None:
    """Drop both columns."""
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.drop_column("client_name")
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.drop_column("channel")
