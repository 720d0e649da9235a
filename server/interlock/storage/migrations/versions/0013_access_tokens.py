"""Scoped access tokens of users (``access_tokens``), e.g. one an MCP client holds.

Revision ID: 0013_access_tokens
Revises: 0012_mcp_record_unique
Create Date: 2026-12-01 14:00:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0013_access_tokens"
down_revision: str | Sequence[str] | None = "0012_mcp_record_unique"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Create ``access_tokens`` (only each token's SHA-256 digest is stored)."""
    op.create_table(
        "access_tokens",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("user_id", sa.String(length=64), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("scope", sa.String(length=20), nullable=False),
        sa.Column("token_hash", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_access_tokens_user_id", "access_tokens", ["user_id"], unique=False)
    op.create_index("ix_access_tokens_token_hash", "access_tokens", ["token_hash"], unique=True)


def downgrade() -> None:
    """Drop ``access_tokens``."""
    op.drop_index("ix_access_tokens_token_hash", table_name="access_tokens")
    op.drop_index("ix_access_tokens_user_id", table_name="access_tokens")
    op.drop_table("access_tokens")
