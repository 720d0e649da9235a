"""Engine: a pause survives a server restart, and two decisions racing on one call.

* Restart: the server stops while a call is interrupted; a new server on the same database
  still lists the call as pending, and a decision resumes the run to completion with exactly
  one execution.
* Race: approve and reject sent at the same time on one call: exactly one 200, one 409
  carrying the winner's decision, at most one execution (exactly one when approve won).
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import func
from sqlmodel import select

from interlock.engine.recovery import recover_runs
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import Decision, Message
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import EventLog, collect, terminals

RACES = 3


async def _all_events(server: LiveServer, conversation_id: str) -> EventLog:
    response = await server.client.get(f"/api/conversations/{conversation_id}")
    last = response.json()["last_event_seq"]
    return await collect(
        server.client, conversation_id, until=lambda log: int(log.frames[-1].id or 0) >= last
    )


def _notes(server: LiveServer) -> list[str]:
    return sorted(text for _, text in stored_notes(server.services.db))


def _count(server: LiveServer, table: Any, **where: str) -> int:
    with server.services.db.session() as session:
        query = select(func.count()).select_from(table)
        for column, value in where.items():
            query = query.where(getattr(table, column) == value)
        return int(session.exec(query).one())


async def test_engine_an_interrupted_call_survives_a_restart_and_resumes_once(
    engine_settings: Settings,
) -> None:
    before = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "survivor"}))]
    )
    async with live_server(engine_settings, model=before) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add a note survivor")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        call = log.of("tool_call.interrupted")[0]["tool_call"]
    assert before.calls_made == 1

    after = ScriptedChatModel(responses=["Added it after the restart."])
    async with live_server(engine_settings, model=after) as server:
        pending = (await server.client.get(f"/api/conversations/{conversation_id}/pending")).json()
        assert [(c["id"], c["status"]) for c in pending] == [(call["id"], "interrupted")]
        assert _notes(server) == []
        await server.idle()
        assert after.calls_made == 0  # recover() does not resume an undecided pause

        response = await server.decide(call["id"], type="approve")
        assert response.status_code == 200, response.text
        log = await collect(
            server.client,
            conversation_id,
            until=terminals(1),
            last_event_id=str(log.frames[-1].id),
        )
        assert log.types[-1] == "run.completed", log.types
        await server.idle()

        assert _notes(server) == ["survivor"]
        assert after.calls_made == 1
        events = await _all_events(server, conversation_id)
        assert [e["trigger"] for e in events.of("run.started")] == ["message", "resume"]
        assert len(events.of("tool_call.running")) == 1
        assert [e["tool_call"]["status"] for e in events.of("tool_call.completed")] == ["succeeded"]
        assert _count(server, Message, tool_call_id=call["id"]) == 1
        assert events.of("message.completed")[-1]["message"]["content"] == (
            "Added it after the restart."
        )


async def test_engine_two_concurrent_decisions_on_one_call_one_wins(
    engine_settings: Settings,
) -> None:
    script: list[Any] = []
    for i in range(RACES):
        script += [scripted_message("Adding.", ("notes_add", {"text": f"race {i}"})), "Done."]
    model = ScriptedChatModel(responses=script)
    expected_notes: list[str] = []
    async with live_server(engine_settings, model=model) as server:
        for i in range(RACES):
            conversation_id = await server.new_conversation()
            await server.say(conversation_id, f"add a note race {i}")
            log = await collect(server.client, conversation_id, until=terminals(1))
            assert log.types[-1] == "run.paused", log.types
            call_id = log.of("tool_call.interrupted")[0]["tool_call"]["id"]

            approve, reject = await asyncio.gather(
                server.decide(call_id, type="approve"),
                server.decide(call_id, type="reject", message="no"),
            )
            statuses = sorted([approve.status_code, reject.status_code])
            assert statuses == [200, 409], (approve.text, reject.text)
            winner, loser = (approve, reject) if approve.status_code == 200 else (reject, approve)
            assert loser.json()["error"]["code"] == "not_interrupted"
            assert loser.json()["error"]["details"]["decision"] == winner.json()["decision"]

            log = await collect(
                server.client,
                conversation_id,
                until=terminals(1),
                last_event_id=str(log.frames[-1].id),
            )
            assert log.types[-1] == "run.completed", log.types
            await server.idle()

            won = winner.json()["decision"]["type"]
            if won == "approve":
                expected_notes.append(f"race {i}")
            assert _notes(server) == sorted(expected_notes)
            assert _count(server, Decision, tool_call_id=call_id) == 1
            assert _count(server, Message, tool_call_id=call_id) == 1
            events = await _all_events(server, conversation_id)
            assert len(events.of("tool_call.decided")) == 1
            assert len(events.of("tool_call.running")) == (1 if won == "approve" else 0)
            (completed,) = events.of("tool_call.completed")
            assert completed["tool_call"]["status"] == (
                "succeeded" if won == "approve" else "rejected"
            )


async def test_engine_a_decision_that_loses_the_insert_race_gets_409_with_the_winners_decision(
    engine_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Deterministic race: a competing decision is committed between the check and the insert.

    An ``edit`` looks its tool up (``registry.get``) after checking that no decision exists
    and before inserting its own; the test commits a competing ``reject`` right there, so the
    insert hits the unique ``decisions.tool_call_id`` and must answer 409 with the winner.
    """
    model = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "contested"}))]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add a note contested")
        log = await collect(server.client, conversation_id, until=terminals(1))
        call = log.of("tool_call.interrupted")[0]["tool_call"]
        await server.idle()
        registry = server.services.registry
        original_get = registry.get
        competing: list[str] = []

        def get_then_lose_the_race(name: str) -> Any:
            if not competing:
                with server.services.db.session() as session:
                    rival = Decision(
                        tool_call_id=call["id"],
                        conversation_id=conversation_id,
                        type="reject",
                        user_id="user_rival",
                        message="I was faster",
                        proposed_args=call["proposed_args"],
                    )
                    session.add(rival)
                    session.commit()
                    competing.append(rival.id)
            return original_get(name)

        monkeypatch.setattr(registry, "get", get_then_lose_the_race)
        response = await server.decide(call["id"], type="edit", args={"text": "mine"})
        monkeypatch.undo()

        assert competing, "the edit did not look its tool up between check and insert"
        assert response.status_code == 409, response.text
        error = response.json()["error"]
        assert error["code"] == "not_interrupted"
        assert error["details"]["decision"]["id"] == competing[0]
        assert error["details"]["decision"]["type"] == "reject"
        await server.idle()
        assert _count(server, Decision, tool_call_id=call["id"]) == 1
        assert _notes(server) == []
        events = await _all_events(server, conversation_id)
        assert events.of("tool_call.decided") == []
        assert events.of("tool_call.running") == []


async def test_engine_restart_resumes_only_pauses_whose_calls_were_all_decided(
    engine_settings: Settings,
) -> None:
    before = ScriptedChatModel(
        responses=[
            scripted_message("Adding.", ("notes_add", {"text": "decided"})),
            scripted_message("Adding.", ("notes_add", {"text": "waiting"})),
        ]
    )
    calls: dict[str, tuple[str, str]] = {}
    async with live_server(engine_settings, model=before) as server:
        for text in ("decided", "waiting"):
            conversation_id = await server.new_conversation()
            await server.say(conversation_id, f"add a note {text}")
            log = await collect(server.client, conversation_id, until=terminals(1))
            assert log.types[-1] == "run.paused", log.types
            calls[text] = (conversation_id, log.of("tool_call.interrupted")[0]["tool_call"]["id"])
        # A decision stored just before the server stopped, its resume never started.
        user_id = (await server.client.get("/api/me")).json()["id"]
        with server.services.db.session() as session:
            session.add(
                Decision(
                    tool_call_id=calls["decided"][1],
                    conversation_id=calls["decided"][0],
                    type="approve",
                    user_id=user_id,
                    proposed_args={"text": "decided"},
                )
            )
            session.commit()

    after = ScriptedChatModel(responses=["Added it after the restart."])
    async with live_server(engine_settings, model=after) as server:
        log = await collect(server.client, calls["decided"][0], until=terminals(2))
        assert log.types[-1] == "run.completed", log.types
        await server.idle()
        assert _notes(server) == ["decided"] and after.calls_made == 1
        pending = await server.client.get(f"/api/conversations/{calls['waiting'][0]}/pending")
        assert [c["id"] for c in pending.json()] == [calls["waiting"][1]]
        # What start-up recovery would try now: nothing (the other pause waits for a person).
        engine = server.services.engine
        found = await engine.db.run(recover_runs, engine, {engine.worker_id})
        assert (found.repaired, found.resume, found.takeover) == ([], [], [])
