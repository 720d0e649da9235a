"""C06 — storage stays bounded (main job).

20 turns in one conversation with the offline model, each "add a note n<i>" then one approval.
Rows per turn are constant; the numbers, for one turn (a message run that pauses on the
``notes.add`` card, then a resume run that executes it and answers):

* ``messages``: 4 (user, assistant with the call, tool, final assistant)
* ``tool_calls``: 1
* ``decisions``: 1
* ``runs``: 2 (trigger ``message``, trigger ``resume``)
* ``events``: 23 (:data:`EVENTS_PER_TURN` lists them)
* ``audit_records``: 1 (the approval)

The engine keeps no graph state of its own (no checkpointer: the state is ids only), so
deleting the conversation must leave no row that names it in any table of the database, except
the audit log: it is append-only and SHA-256 chained (issue 8), so its records of the
conversation's decisions outlive it by design. Notes belong to the person and stay. A conversation left with a pending call can still be decided
after the only housekeeping there is, the ``engine.recover()`` that runs at every start.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import func, inspect, text
from sqlmodel import select

from interlock.settings import Settings
from interlock.storage import AuditRecord, Decision, Event, Message, Run, ToolCall
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import collect, terminals

TURNS = 20
TABLES: dict[str, Any] = {
    "messages": Message,
    "tool_calls": ToolCall,
    "decisions": Decision,
    "runs": Run,
    "events": Event,
    "audit_records": AuditRecord,
}
EVENTS_PER_TURN = 23
"""Events of one turn: 23.

* message run (11): run.started, message.completed (user), 4 message.delta ("I'll ", "add ",
  "that ", "note."), message.completed (assistant), tool_call.created, tool_call.interrupted,
  run.paused;
* the decision (1): tool_call.decided;
* resume run (11): run.started, tool_call.running, tool_call.completed, 7 message.delta
  ("Done — I added note #<id>: “n<i>”."), message.completed (assistant), run.completed.
"""
ROWS_PER_TURN = {
    "messages": 4,
    "tool_calls": 1,
    "decisions": 1,
    "runs": 2,
    "events": EVENTS_PER_TURN,
    "audit_records": 1,
}
# The audit log keeps its records of a deleted conversation (append-only, chained).
KEPT_AFTER_DELETE = {"audit_records"}


def _row_counts(server: LiveServer, conversation_id: str) -> dict[str, int]:
    with server.services.db.session() as session:
        return {
            name: int(
                session.exec(
                    select(func.count())
                    .select_from(model)
                    .where(model.conversation_id == conversation_id)
                ).one()
            )
            for name, model in TABLES.items()
        }


def _rows_naming(server: LiveServer, conversation_id: str) -> dict[str, int]:
    """Rows of every table in the database that belong to ``conversation_id``.

    A row belongs to it when its ``conversation_id`` (or a checkpointer's ``thread_id``) is
    the conversation's id, or, in ``conversations``, when its ``id`` is.
    """
    engine = server.services.db.engine
    found: dict[str, int] = {}
    with engine.connect() as connection:
        inspector = inspect(connection)
        for table in inspector.get_table_names():
            if table in KEPT_AFTER_DELETE:
                continue
            columns = {c["name"] for c in inspector.get_columns(table)}
            keys = [k for k in ("conversation_id", "thread_id") if k in columns]
            if table == "conversations":
                keys.append("id")
            for key in keys:
                count = connection.execute(
                    text(f'SELECT COUNT(*) FROM "{table}" WHERE "{key}" = :cid'),
                    {"cid": conversation_id},
                ).scalar_one()
                found[f"{table}.{key}"] = int(count)
    return found


def _notes(server: LiveServer) -> list[str]:
    return [text for _, text in stored_notes(server.services.db)]


async def _turn(server: LiveServer, conversation_id: str, note: str, seen: int) -> int:
    """Ask for a note, approve the card, wait for the answer; return the last event seq."""
    await server.say(conversation_id, f"add a note {note}")
    log = await collect(server.client, conversation_id, until=terminals(1), last_event_id=str(seen))
    assert log.types[-1] == "run.paused", log.types
    (interrupted,) = log.of("tool_call.interrupted")
    assert interrupted["tool_call"]["proposed_args"] == {"text": note}
    response = await server.decide(interrupted["tool_call"]["id"], type="approve")
    assert response.status_code == 200, response.text
    log = await collect(
        server.client,
        conversation_id,
        until=terminals(1),
        last_event_id=str(log.frames[-1].id),
    )
    assert log.types[-1] == "run.completed", log.types
    await server.idle()
    return int(log.frames[-1].id or 0)


async def test_case_c06_twenty_turns_add_constant_rows_and_delete_removes_them_all(
    make_settings: Callable[..., Settings],
) -> None:
    # One delta event per token (no time window), so the count does not depend on timing.
    async with live_server(make_settings(delta_window_s=0)) as server:
        conversation_id = await server.new_conversation()
        other_id = await server.new_conversation()  # untouched by the delete
        before = _row_counts(server, conversation_id)
        assert before == dict.fromkeys(TABLES, 0)

        seen = 0
        increments: list[dict[str, int]] = []
        for i in range(1, TURNS + 1):
            seen = await _turn(server, conversation_id, f"n{i}", seen)
            after = _row_counts(server, conversation_id)
            increments.append({name: after[name] - before[name] for name in TABLES})
            before = after

        assert increments == [ROWS_PER_TURN] * TURNS, increments
        assert before == {name: n * TURNS for name, n in ROWS_PER_TURN.items()}
        assert _notes(server) == [f"n{i}" for i in range(1, TURNS + 1)]

        response = await server.client.delete(f"/api/conversations/{conversation_id}")
        assert response.status_code == 204, response.text
        left = _rows_naming(server, conversation_id)
        for table in (*(set(TABLES) - KEPT_AFTER_DELETE), "conversations"):
            assert any(key.startswith(f"{table}.") for key in left), (table, left)
        assert {key: n for key, n in left.items() if n} == {}
        assert (await server.client.get(f"/api/conversations/{conversation_id}")).status_code == 404
        assert _row_counts(server, conversation_id)["audit_records"] == TURNS

        # Notes are the person's, not the conversation's; the other conversation is intact.
        assert _notes(server) == [f"n{i}" for i in range(1, TURNS + 1)]
        assert (await server.client.get(f"/api/conversations/{other_id}")).status_code == 200


async def test_case_c06_a_pending_call_can_still_be_decided_after_housekeeping(
    case_settings: Settings,
) -> None:
    async with live_server(case_settings) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add a note decide me later")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        call = log.of("tool_call.interrupted")[0]["tool_call"]
        await server.idle()

    # The only housekeeping: engine.recover() at the next start (same database).
    async with live_server(case_settings) as server:
        pending = await server.client.get(f"/api/conversations/{conversation_id}/pending")
        assert [c["id"] for c in pending.json()] == [call["id"]]
        assert pending.json()[0]["status"] == "interrupted"
        assert _notes(server) == []

        response = await server.decide(call["id"], type="approve")
        assert response.status_code == 200, response.text
        log = await collect(
            server.client,
            conversation_id,
            until=terminals(1),
            last_event_id=str(log.frames[-1].id),
        )
        assert [e["trigger"] for e in log.of("run.started")] == ["resume"]
        assert log.types[-1] == "run.completed", log.types
        await server.idle()
        assert _notes(server) == ["decide me later"]
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        stored = next(
            c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call["id"]
        )
        assert stored["status"] == "succeeded"
        assert detail["status"] == "idle"
