"""Employees (admin-made and overrides of built-ins) and skills loaded per conversation.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 19:57:30.448132
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    op.create_table(
        "employees",
        sa.Column("slug", sa.String(length=100), nullable=False),
        sa.Column("builtin", sa.Boolean(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("avatar", sa.String(length=200), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("about", sa.Text(), nullable=False),
        sa.Column("system_prompt", sa.Text(), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=True),
        sa.Column("pinned_skills", sa.JSON(), nullable=False),
        sa.Column("available_skills", sa.JSON(), nullable=False),
        sa.Column("tool_overrides", sa.JSON(), nullable=False),
        sa.Column("greeting", sa.Text(), nullable=False),
        sa.Column("starter_prompts", sa.JSON(), nullable=False),
        sa.Column("disabled", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("slug"),
    )
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("loaded_skills", sa.JSON(), nullable=False, server_default=sa.text("'[]'"))
        )


def downgrade() -> None:
    """Downgrade the schema."""
    with op.batch_alter_table("conversations", schema=None) as batch_op:
        batch_op.drop_column("loaded_skills")

    op.drop_table("employees")
