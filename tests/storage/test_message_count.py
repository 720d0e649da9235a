"""``conversations.message_count`` is kept by the database (migration 0019's triggers).

Every insert, delete or move of a message counts, whoever writes it (ORM, Core or raw SQL),
on both backends; the history cache's check relies on it.
"""

from __future__ import annotations

from sqlalchemy import delete, text, update
from sqlmodel import col, func, select

from interlock.storage import Conversation, Database, Message, MessageRole


def _counts(db: Database) -> dict[str, tuple[int, int]]:
    """``{conversation id: (message_count, counted messages)}``."""
    with db.session() as session:
        out = {}
        for conversation in session.exec(select(Conversation)).all():
            counted = session.exec(
                select(func.count())
                .select_from(Message)
                .where(Message.conversation_id == conversation.id)
            ).one()
            out[conversation.id] = (conversation.message_count, counted)
        return out


def test_message_count_follows_every_change_to_the_messages(database: Database) -> None:
    with database.session() as session:
        a = Conversation(owner_id="ann", employee="helper")
        b = Conversation(owner_id="ann", employee="helper")
        session.add_all([a, b])
        session.commit()
        a_id, b_id = a.id, b.id
    with database.session() as session:
        for text_ in ("one", "two", "three"):
            session.add(Message(conversation_id=a_id, role=MessageRole.user, content=text_))
        session.add(Message(conversation_id=b_id, role=MessageRole.user, content="b"))
        session.commit()
    assert _counts(database) == {a_id: (3, 3), b_id: (1, 1)}

    with database.session() as session:
        first = session.exec(
            select(Message.id).where(Message.conversation_id == a_id).order_by(col(Message.id))
        ).first()
        session.exec(delete(Message).where(col(Message.id) == first))  # type: ignore[call-overload]
        session.commit()
    assert _counts(database) == {a_id: (2, 2), b_id: (1, 1)}

    with database.session() as session:  # moved to another conversation
        session.exec(
            update(Message)  # type: ignore[call-overload]
            .where(col(Message.conversation_id) == b_id)
            .values(conversation_id=a_id)
        )
        session.commit()
    assert _counts(database) == {a_id: (3, 3), b_id: (0, 0)}

    with database.session() as session:  # raw SQL counts too; a rolled-back insert does not
        session.connection().execute(
            text(
                "INSERT INTO messages (conversation_id, role, content, created_at) "
                "VALUES (:c, 'user', 'raw', CURRENT_TIMESTAMP)"
            ),
            {"c": b_id},
        )
        session.commit()
    with database.session() as session:
        session.add(Message(conversation_id=b_id, role=MessageRole.user, content="undone"))
        session.flush()
        session.rollback()
    assert _counts(database) == {a_id: (3, 3), b_id: (1, 1)}
