"""The notes skill's data as stored through ``ctx.store`` (namespace ``notes``), for assertions."""

from __future__ import annotations

from sqlmodel import col, select

from interlock.storage import Database, StoreEntry


def stored_notes(db: Database, owner_id: str | None = None) -> list[tuple[int, str]]:
    """Every live note as ``(id, text)``, oldest first (of ``owner_id`` when given)."""
    query = select(StoreEntry).where(StoreEntry.namespace == "notes", col(StoreEntry.present))
    if owner_id is not None:
        query = query.where(StoreEntry.owner_id == owner_id)
    with db.session() as session:
        rows = session.exec(query.order_by(col(StoreEntry.id))).all()
    return [(int(row.key), str(row.value["text"])) for row in rows]


def insert_note(db: Database, owner_id: str, text: str) -> int:
    """Store a note directly (no tool call, so no undo step) and return its id."""
    with db.session() as session:
        entry = StoreEntry(
            owner_id=owner_id, namespace="notes", key="pending", value={"text": text}
        )
        session.add(entry)
        session.flush()
        assert entry.id is not None
        entry.key = str(entry.id)
        session.add(entry)
        session.commit()
        return entry.id


def remove_note(db: Database, note_id: int) -> None:
    """Delete a note's row directly (as if removed elsewhere; no undo step)."""
    with db.session() as session:
        entry = session.exec(
            select(StoreEntry).where(
                StoreEntry.namespace == "notes", StoreEntry.key == str(note_id)
            )
        ).one()
        session.delete(entry)
        session.commit()


def change_note(db: Database, note_id: int, text: str) -> None:
    """Change a note's text directly (as if changed elsewhere; no undo step)."""
    with db.session() as session:
        entry = session.exec(
            select(StoreEntry).where(
                StoreEntry.namespace == "notes", StoreEntry.key == str(note_id)
            )
        ).one()
        entry.value = {"text": text}
        session.add(entry)
        session.commit()
