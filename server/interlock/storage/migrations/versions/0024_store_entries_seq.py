"""``store_entries.seq``: a new entry's number counts per person and namespace.

:meth:`interlock.store.ToolStore.add` numbered a new entry with its row id, shared by everyone,
so a person's first note could be "note #5" (telling them others had written four). An added
entry is now numbered ``seq``, one more than the largest of that person's entries in that
namespace, held unique per person and namespace by the database. Existing entries keep their
numbers (history, undo labels and waiting calls name them): a key written as a number becomes
its ``seq``, so a person's next entry follows their own largest, not everyone's.

Revision ID: 0024_store_entries_seq
Revises: 0023_users_folded_name
Create Date: 2026-12-04 17:10:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0024_store_entries_seq"
down_revision: str | Sequence[str] | None = "0023_users_folded_name"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the column, fill it from keys written as numbers, then hold it unique."""
    with op.batch_alter_table("store_entries") as batch_op:
        batch_op.add_column(sa.Column("seq", sa.Integer(), nullable=True))
    entries = sa.table(
        "store_entries",
        sa.column("id", sa.Integer()),
        sa.column("key", sa.String()),
        sa.column("seq", sa.Integer()),
    )
    connection = op.get_bind()
    for entry_id, key in connection.execute(sa.select(entries.c.id, entries.c.key)).all():
        if key.isascii() and key.isdigit() and str(int(key)) == key:  # as add() writes them
            connection.execute(
                sa.update(entries).where(entries.c.id == entry_id).values(seq=int(key))
            )
    with op.batch_alter_table("store_entries") as batch_op:
        batch_op.create_unique_constraint(
            "uq_store_entries_owner_ns_seq", ["owner_id", "namespace", "seq"]
        )


def downgrade() -> None:
    """Drop the constraint and the column (entries keep their keys)."""
    with op.batch_alter_table("store_entries") as batch_op:
        batch_op.drop_constraint("uq_store_entries_owner_ns_seq", type_="unique")
        batch_op.drop_column("seq")
