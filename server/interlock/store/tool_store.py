"""``ctx.store``: a person's data kept by tools, with one undo step per tool call.

Data is namespaced JSON values by key (``notes`` / ``"3"`` -> ``{"text": "buy milk"}``), owned by
the conversation's owner. Every write is its own transaction and records, per call and key, the
value before the call's first write and after its last (:class:`~interlock.storage.StoreChange`);
``interlock.store.undo`` restores them. Methods are synchronous: call them from sync handlers,
which run in a worker thread, never from async code on the event loop.
"""

from __future__ import annotations

import functools
import uuid
from typing import Any

from sqlalchemy import bindparam, func, insert, update
from sqlalchemy import select as sa_select
from sqlalchemy.sql.expression import Executable
from sqlmodel import Session, col, select

from interlock.storage import Database, StoreChange, StoreEntry, ToolCall
from interlock.storage.models import utcnow
from interlock.storage.write_behind import defer, execute
from interlock.tools.base import ToolError

UNDO_AVAILABLE = "available"
UNDO_UNDONE = "undone"

_tool_calls = ToolCall.__table__  # type: ignore[attr-defined]
_UNDO_AVAILABLE = (
    update(_tool_calls)
    .where(_tool_calls.c.id == bindparam("call_id"))
    .values(undo_state=UNDO_AVAILABLE)
)
"""Prebuilt Core statement (every write runs it; no ORM object of the call is loaded)."""
_entries = StoreEntry.__table__  # type: ignore[attr-defined]
_NEXT_SEQ = (
    sa_select(func.coalesce(func.max(_entries.c.seq), 0) + 1)
    .where(
        _entries.c.owner_id == bindparam("seq_owner_id"),
        _entries.c.namespace == bindparam("seq_namespace"),
    )
    .scalar_subquery()
)
"""One more than the owner's largest entry number in the namespace."""
_NEW_ENTRY = insert(_entries).values(seq=_NEXT_SEQ).returning(_entries.c.id, _entries.c.seq)
"""A new entry numbered one more than its owner's largest in its namespace (``seq``, unique
per owner and namespace). SQLite writes one transaction at a time, so no other add can take
the number meanwhile; on PostgreSQL :func:`_new_entry_pg` is used instead."""


@functools.cache
def _new_entry_pg() -> Executable:
    """:data:`_NEW_ENTRY` for PostgreSQL: no row comes back when a concurrent add of the same
    person took the number first (PostgreSQL waited for that add's commit and skipped the
    insert, leaving this transaction usable), and the next try's statement sees it taken.
    Built on first use, so a SQLite server never imports PostgreSQL's dialect."""
    from sqlalchemy.dialects.postgresql import insert as pg_insert

    return (
        pg_insert(_entries)
        .values(seq=_NEXT_SEQ)
        .on_conflict_do_nothing(index_elements=["owner_id", "namespace", "seq"])
        .returning(_entries.c.id, _entries.c.seq)
    )


_ADD_TRIES = 50
"""Tries of one add's insert: each failed one waited for another add of the same person to
commit (bounded too by the lock timeout of the call)."""
_changes = StoreChange.__table__  # type: ignore[attr-defined]
_NEW_CHANGE = insert(_changes).inline()
"""A change's insert that returns nothing (not even its key), so it can be deferred."""
_SET_ENTRY = (
    update(_entries)
    .where(_entries.c.id == bindparam("entry_id"))
    .values(
        last_change_id=sa_select(_changes.c.id)
        .where(
            _changes.c.tool_call_id == bindparam("call_id"),
            _changes.c.entry_id == bindparam("entry_id"),
        )
        .scalar_subquery()
    )
)
"""Prebuilt for :meth:`ToolStore.add`: the entry's last change is the call's change of it
(one per call and entry); the parameters other than ``entry_id`` and ``call_id`` name the
columns set."""


class ToolStore:
    """The store as one tool call sees it.

    Args:
        db: The database.
        owner_id: Whose data (the conversation's owner).
        tool_call_id: The call writing; its changes form one undo step.
        writable: False for read tools: any write fails with ``permission_denied``.
        tool_name: For error messages.
    """

    def __init__(
        self, db: Database, owner_id: str, tool_call_id: str, *, writable: bool, tool_name: str
    ) -> None:
        self._db = db
        self.owner_id = owner_id
        self.tool_call_id = tool_call_id
        self.writable = writable
        self.tool_name = tool_name

    # -- reads ---------------------------------------------------------------------------
    def get(self, namespace: str, key: str) -> Any:
        """Return the value at ``namespace/key``, or None when absent."""
        with self._db.session() as session:
            entry = self._entry(session, namespace, key)
            return entry.value if entry is not None and entry.present else None

    def items(self, namespace: str) -> list[tuple[str, Any]]:
        """Return ``[(key, value)]`` of ``namespace``, oldest first."""
        with self._db.session() as session:
            rows = session.exec(
                select(StoreEntry)
                .where(
                    StoreEntry.owner_id == self.owner_id,
                    StoreEntry.namespace == namespace,
                    col(StoreEntry.present).is_(True),
                )
                .order_by(col(StoreEntry.id))
            ).all()
            return [(row.key, row.value) for row in rows]

    # -- writes --------------------------------------------------------------------------
    def add(self, namespace: str, value: Any, *, label: str = "") -> str:
        """Store ``value`` under a new numeric key and return the key.

        Keys count per owner and namespace (a person's first note is ``"1"``, whatever others
        wrote), one more than the owner's largest so far, deleted entries included, so a
        number is never given twice. ``label`` names the change for a person; ``{key}`` in it
        becomes the new key (``"note #{key}: “buy milk”"``). Written with prebuilt Core
        statements (the rows the unit of work would write: the entry, its change, the call's
        undo state, then the entry's key, value and last change), as a new entry has no
        change to fold into: on PostgreSQL two round trips, the entry's insert (its number is
        in the label), then the rest with the ``COMMIT``.

        Raises:
            ToolError: ``permission_denied`` for a read tool.
            ToolError: ``busy`` when concurrent adds of the same person took the number
                :data:`_ADD_TRIES` times in a row.
        """
        self._check_writable()
        return self._add(namespace, value, label)

    def _add(self, namespace: str, value: Any, label: str) -> str:
        with self._db.session() as session:
            created = utcnow()
            statement = _NEW_ENTRY if self._db.is_sqlite else _new_entry_pg()
            for _ in range(_ADD_TRIES):
                row = execute(
                    session,
                    statement,
                    {
                        "owner_id": self.owner_id,
                        "namespace": namespace,
                        "seq_owner_id": self.owner_id,
                        "seq_namespace": namespace,
                        "key": f"new-{uuid.uuid4().hex}",
                        "value": None,
                        "present": False,
                        "created_at": created,
                        "updated_at": created,
                    },
                ).first()
                if row is not None:
                    break
            else:
                raise ToolError(
                    "busy",
                    "Too many of your entries were being added at once; try again.",
                )
            assert row is not None
            entry_id, seq = int(row[0]), int(row[1])
            key = str(seq)
            label = label.replace("{key}", key, 1)
            # Nothing reads these three writes' results: on PostgreSQL they go out with the
            # COMMIT, in its round trip (storage.write_behind); the entry names its change
            # by the (call, entry) pair, unique, rather than by an id read back first.
            defer(
                session,
                _NEW_CHANGE,
                {
                    "tool_call_id": self.tool_call_id,
                    "entry_id": entry_id,
                    "before": None,
                    "present_before": False,
                    "after": value,
                    "present_after": True,
                    "label": label[:300],
                    "created_at": utcnow(),
                },
            )
            defer(session, _UNDO_AVAILABLE, {"call_id": self.tool_call_id})
            defer(
                session,
                _SET_ENTRY,
                {
                    "entry_id": entry_id,
                    "call_id": self.tool_call_id,
                    "key": key,
                    "value": value,
                    "present": True,
                    "updated_at": utcnow(),
                },
            )
            session.commit()
            return key

    def put(self, namespace: str, key: str, value: Any, *, label: str = "") -> None:
        """Set ``namespace/key`` to ``value`` (JSON).

        Raises:
            ToolError: ``permission_denied`` for a read tool.
        """
        self._check_writable()
        with self._db.session() as session:
            entry = self._entry(session, namespace, key, lock=True)
            if entry is None:
                entry = StoreEntry(
                    owner_id=self.owner_id,
                    namespace=namespace,
                    key=key,
                    seq=_number(key),  # so add() never gives this number again
                    present=False,
                )
                session.add(entry)
                session.flush()
            self._write(session, entry, value, present=True, label=label)
            session.commit()

    def delete(self, namespace: str, key: str, *, label: str = "") -> bool:
        """Remove ``namespace/key``; return False when it was absent (nothing recorded).

        Raises:
            ToolError: ``permission_denied`` for a read tool.
        """
        self._check_writable()
        with self._db.session() as session:
            entry = self._entry(session, namespace, key, lock=True)
            if entry is None or not entry.present:
                return False
            self._write(session, entry, None, present=False, label=label)
            session.commit()
            return True

    # -- internals -----------------------------------------------------------------------
    def _check_writable(self) -> None:
        if not self.writable:
            raise ToolError(
                "permission_denied",
                f"The tool {self.tool_name!r} only reads; it may not change stored data.",
            )

    def _entry(
        self, session: Session, namespace: str, key: str, *, lock: bool = False
    ) -> StoreEntry | None:
        query = select(StoreEntry).where(
            StoreEntry.owner_id == self.owner_id,
            StoreEntry.namespace == namespace,
            StoreEntry.key == key,
        )
        return session.exec(query.with_for_update() if lock else query).first()

    def _write(
        self,
        session: Session,
        entry: StoreEntry,
        value: Any,
        *,
        present: bool,
        label: str,
        new: bool = False,
    ) -> None:
        """Apply one write to ``entry`` and fold it into this call's change of that entry.

        ``new``: the entry was created in this transaction, so no change of it exists yet.
        """
        assert entry.id is not None
        change = (
            None
            if new
            else session.exec(
                select(StoreChange).where(
                    StoreChange.tool_call_id == self.tool_call_id,
                    StoreChange.entry_id == entry.id,
                )
            ).first()
        )
        if change is None:
            change = StoreChange(
                tool_call_id=self.tool_call_id,
                entry_id=entry.id,
                before=entry.value if entry.present else None,
                present_before=entry.present,
                prev_change_id=entry.last_change_id,
            )
        change.after = value
        change.present_after = present
        if label:
            change.label = label[:300]
        session.add(change)
        session.flush()
        entry.value = value
        entry.present = present
        entry.last_change_id = change.id
        entry.updated_at = utcnow()
        session.add(entry)
        session.connection().execute(_UNDO_AVAILABLE, {"call_id": self.tool_call_id})


def _number(key: str) -> int | None:
    """``3`` for the key ``"3"`` (a number as :meth:`ToolStore.add` writes it), else None."""
    return int(key) if key.isascii() and key.isdigit() and str(int(key)) == key else None
