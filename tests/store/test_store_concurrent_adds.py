"""Concurrent adds of one person: every add gets its own number, none fails.

Found by bench (d): fifty conversations of one person adding notes at once on two workers
failed with ``UniqueViolation`` on ``uq_store_entries_owner_ns_seq`` once per-person numbers
came in (two adds read the same largest number; retrying whole transactions ran out)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from sqlmodel import select

from interlock.storage import Conversation, Message, StoreEntry, ToolCall
from interlock.store.tool_store import ToolStore

ADDS = 16


def _calls(database, count: int) -> list[str]:
    with database.session() as session:
        conversation = Conversation(owner_id="ann", employee="assistant")
        session.add(conversation)
        session.flush()
        message = Message(conversation_id=conversation.id, role="assistant", run_id="run_1")
        session.add(message)
        session.flush()
        calls = [
            ToolCall(
                conversation_id=conversation.id,
                message_id=message.id,
                run_id="run_1",
                name="notes.add",
                proposed_args={},
            )
            for _ in range(count)
        ]
        session.add_all(calls)
        session.commit()
        return [call.id for call in calls]


def test_a_persons_concurrent_adds_each_get_their_own_number(database) -> None:
    start = threading.Barrier(ADDS, timeout=30)

    def add(call_id: str) -> str:
        store = ToolStore(
            database, owner_id="ann", tool_call_id=call_id, writable=True, tool_name="notes.add"
        )
        start.wait()
        return store.add("notes", {"text": call_id})

    with ThreadPoolExecutor(ADDS) as pool:
        keys = list(pool.map(add, _calls(database, ADDS), timeout=60))

    assert sorted(int(key) for key in keys) == list(range(1, ADDS + 1))
    with database.session() as session:
        rows = session.exec(select(StoreEntry).where(StoreEntry.owner_id == "ann")).all()
    assert sorted((row.seq, row.key) for row in rows) == [(n, str(n)) for n in range(1, ADDS + 1)]
