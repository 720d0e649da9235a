"""Conversation rows written and read with Core statements, for tests of the storage layer's
transactions (``write_behind``, ``pg_begin``)."""

from __future__ import annotations

from sqlalchemy import func, select

from interlock.storage import Conversation, Database

CONVERSATIONS = Conversation.__table__  # type: ignore[attr-defined]
COUNT = select(func.count()).select_from(CONVERSATIONS)
"""How many conversations are stored."""
TITLES = select(CONVERSATIONS.c.id, CONVERSATIONS.c.title).order_by(CONVERSATIONS.c.id)
"""``(id, title)`` of every conversation, by id."""


def conversation_row(conversation_id: str, title: str = "") -> dict[str, object]:
    """Every column of a new conversation, as an ``insert`` takes them."""
    row = Conversation(id=conversation_id, owner_id="user_rows", employee="assistant", title=title)
    return {c.name: getattr(row, c.name) for c in CONVERSATIONS.columns}


def stored_titles(database: Database) -> list[tuple[str, str]]:
    """``(id, title)`` of every stored conversation, by id, read in a session of its own."""
    with database.session() as session:
        return [(str(i), str(t)) for i, t in session.execute(TITLES).all()]
