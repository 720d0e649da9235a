"""What an audit record is about: a tool call (every record so far) or an access token.

Revision ID: 0015_audit_record_kind
Revises: 0014_mcp_call_sessions
Create Date: 2026-12-01 16:30:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0015_audit_record_kind"
down_revision: str | Sequence[str] | None = "0014_mcp_call_sessions"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add ``audit_records.kind`` (``tool_call`` for the existing records, whose hashes do not
    cover it)."""
    with op.batch_alter_table("audit_records", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("kind", sa.String(length=20), nullable=False, server_default="tool_call")
        )


def downgrade() -> None:
    """Drop the column (token records stay, read as tool-call records without a tool)."""
    with op.batch_alter_table("audit_records", schema=None) as batch_op:
        batch_op.drop_column("kind")
