"""The notes skill's data as stored through ``ctx.store`` (namespace ``notes``), for assertions."""

from __future__ import annotations

from sqlmodel import col, func, select

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
    """Store a note directly (no tool call, so no undo step) and return its number: the
    owner's next, as ``ctx.store.add`` numbers it."""
    with db.session() as session:
        last = session.exec(
            select(func.max(StoreEntry.seq)).where(
                StoreEntry.owner_id == owner_id, StoreEntry.namespace == "notes"
            )
        ).one()
        number = (last or 0) + 1
        entry = StoreEntry(
            owner_id=owner_id, namespace="notes", key=str(number), seq=number, value={"text": text}
        )
        session.add(entry)
        session.commit()
        return number


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
