"""``users.folded_name``: user names unique regardless of case, held by a unique index.

Names were compared case-folded by reading every user (``ANN`` was refused beside ``ann`` by
a check before the insert, which two concurrent creations could both pass). The folded name
is now a column with a unique index, so the database itself refuses the second, and a name
is looked up by it. Existing rows are backfilled; a database holding names that differ only
in case from before the rule keeps them all: the oldest gets the folded name, the others
keep None (several NULLs do not collide) and are found by their exact name.

Revision ID: 0023_users_folded_name
Revises: 0022_finished_late_after
Create Date: 2026-12-03 18:10:00.000000
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Revision identifiers, used by Alembic.
revision: str = "0023_users_folded_name"
down_revision: str | Sequence[str] | None = "0022_finished_late_after"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Add the column, fill it (oldest first, each folded name once), then index it."""
    with op.batch_alter_table("users") as batch_op:
        batch_op.add_column(sa.Column("folded_name", sa.String(length=600), nullable=True))
    users = sa.table(
        "users",
        sa.column("id", sa.String()),
        sa.column("name", sa.String()),
        sa.column("created_at", sa.DateTime(timezone=True)),
        sa.column("folded_name", sa.String()),
    )
    connection = op.get_bind()
    rows = connection.execute(
        sa.select(users.c.id, users.c.name).order_by(users.c.created_at, users.c.id)
    ).all()
    seen: set[str] = set()
    for user_id, name in rows:
        folded = name.casefold()  # interlock.storage.models.people.fold_name, as of this revision
        if folded in seen:
            continue
        seen.add(folded)
        connection.execute(sa.update(users).where(users.c.id == user_id).values(folded_name=folded))
    with op.batch_alter_table("users") as batch_op:
        batch_op.create_index("ix_users_folded_name", ["folded_name"], unique=True)


def downgrade() -> None:
    """Drop the index and the column."""
    with op.batch_alter_table("users") as batch_op:
        batch_op.drop_index("ix_users_folded_name")
        batch_op.drop_column("folded_name")
