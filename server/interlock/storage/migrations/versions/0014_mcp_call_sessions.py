"""The MCP session (``Mcp-Session-Id``) a call from an MCP client came in, for the loop guard.

Revision ID: 0014_mcp_call_sessions
Revises: 0013_access_tokens
Create Date: 2026-12-01 14:15:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0014_mcp_call_sessions"
down_revision: str | Sequence[str] | None = "0013_access_tokens"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``tool_calls.mcp_session`` (None for chat calls and 2026-era MCP calls)."""
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.add_column(sa.Column("mcp_session", sa.String(length=200), nullable=True))


def downgrade() -> None:
    """Drop the column."""
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.drop_column("mcp_session")
