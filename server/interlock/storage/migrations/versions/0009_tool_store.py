"""The tools' store (``ctx.store``) with per-call changes for undo; notes move into it.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 10:10:00.000000
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema; each note becomes the store entry ``notes/<id>`` (same id)."""
    op.create_table(
        "store_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.String(length=64), nullable=False),
        sa.Column("namespace", sa.String(length=100), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("value", sa.JSON(), nullable=True),
        sa.Column("present", sa.Boolean(), nullable=False),
        sa.Column("last_change_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("owner_id", "namespace", "key", name="uq_store_entries_owner_ns_key"),
    )
    op.create_table(
        "store_changes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("tool_call_id", sa.String(length=64), nullable=False),
        sa.Column("entry_id", sa.Integer(), nullable=False),
        sa.Column("before", sa.JSON(), nullable=True),
        sa.Column("present_before", sa.Boolean(), nullable=False),
        sa.Column("after", sa.JSON(), nullable=True),
        sa.Column("present_after", sa.Boolean(), nullable=False),
        sa.Column("prev_change_id", sa.Integer(), nullable=True),
        sa.Column("label", sa.String(length=300), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("tool_call_id", "entry_id", name="uq_store_changes_call_entry"),
    )
    op.create_index("ix_store_changes_tool_call_id", "store_changes", ["tool_call_id"])
    op.create_index("ix_store_changes_entry_id", "store_changes", ["entry_id"])
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.add_column(sa.Column("undo_state", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("undone_at", sa.DateTime(timezone=True), nullable=True))

    connection = op.get_bind()
    postgres = connection.dialect.name == "postgresql"
    as_json = "json_build_object('text', text)" if postgres else "json_object('text', text)"
    connection.execute(
        sa.text(
            "INSERT INTO store_entries "
            "(id, owner_id, namespace, key, value, present, created_at, updated_at) "
            f"SELECT id, owner_id, 'notes', CAST(id AS VARCHAR(200)), {as_json}, true, "
            "created_at, created_at FROM notes ORDER BY notes.id"
        )
    )
    if postgres:
        connection.execute(
            sa.text(
                "SELECT setval(pg_get_serial_sequence('store_entries', 'id'), "
                "COALESCE((SELECT MAX(id) FROM store_entries), 1), "
                "(SELECT COUNT(*) > 0 FROM store_entries))"
            )
        )
    op.drop_index("ix_notes_owner_id", table_name="notes")
    op.drop_table("notes")


def downgrade() -> None:
    """Downgrade the schema; live notes go back to the ``notes`` table."""
    op.create_table(
        "notes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("owner_id", sa.String(length=64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_notes_owner_id", "notes", ["owner_id"], unique=False)
    connection = op.get_bind()
    rows = connection.execute(
        sa.text(
            "SELECT id, owner_id, value, created_at FROM store_entries "
            "WHERE namespace = 'notes' AND present"
        )
    ).all()
    for row in rows:
        value = row.value if isinstance(row.value, dict) else json.loads(row.value)
        connection.execute(
            sa.text(
                "INSERT INTO notes (id, owner_id, text, created_at) "
                "VALUES (:id, :owner_id, :text, :created_at)"
            ),
            {
                "id": row.id,
                "owner_id": row.owner_id,
                "text": str(value.get("text", "")),
                "created_at": row.created_at,
            },
        )
    with op.batch_alter_table("tool_calls", schema=None) as batch_op:
        batch_op.drop_column("undone_at")
        batch_op.drop_column("undo_state")
    op.drop_index("ix_store_changes_entry_id", table_name="store_changes")
    op.drop_index("ix_store_changes_tool_call_id", table_name="store_changes")
    op.drop_table("store_changes")
    op.drop_table("store_entries")
