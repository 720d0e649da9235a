"""Engine: pending calls expire on the server's clock, exactly once against a decision.

* The sweeper closes a call past its deadline while the server runs, and the run goes on once.
* Decision vs sweeper, both orders made deterministic: exactly one outcome each time.
* Deadlines come from the server's clock only: the rule's timeout added at interrupt time,
  checked against the server's time at decision time (a client's ``Date`` means nothing).
* The rule's precedence: employee's per-tool rule, tool, employee, setting.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func
from sqlmodel import select

from interlock.engine.expiry import expire_due
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import Decision, Message, ToolCall
from interlock.storage.models import utcnow
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import collect, terminals
from support.waits import wait_until

FAR_FUTURE = datetime(2100, 1, 1, tzinfo=UTC)


def _row(server: LiveServer, call_id: str) -> ToolCall:
    with server.services.db.session() as session:
        row = session.get(ToolCall, call_id)
        assert row is not None
        return row


def _count(server: LiveServer, table: Any, **where: str) -> int:
    with server.services.db.session() as session:
        query = select(func.count()).select_from(table)
        for column, value in where.items():
            query = query.where(getattr(table, column) == value)
        return int(session.exec(query).one())


def _notes(server: LiveServer) -> list[str]:
    return sorted(text for _, text in stored_notes(server.services.db))


async def _paused_call(server: LiveServer, text: str) -> tuple[str, dict[str, Any], str]:
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, f"add a note {text}")
    log = await collect(server.client, conversation_id, until=terminals(1))
    assert log.types[-1] == "run.paused", log.types
    await server.idle()
    return conversation_id, log.of("tool_call.interrupted")[0]["tool_call"], str(log.frames[-1].id)


def _add(text: str) -> Any:
    return scripted_message("Adding.", ("notes_add", {"text": text}))


async def test_engine_the_sweeper_expires_a_call_while_the_server_runs_and_the_run_goes_on_once(
    make_settings: Any,
) -> None:
    model = ScriptedChatModel(responses=[_add("soon"), "Not approved in time; left alone."])
    settings = make_settings(approval_timeout_s=1, approval_sweep_interval_s=60)
    async with live_server(settings, model=model) as server:
        conversation_id, call, last = await _paused_call(server, "soon")
        # The sweeper wakes at the deadline (not after its 60 s interval).
        log = await collect(
            server.client, conversation_id, until=terminals(1), last_event_id=last, timeout_s=30
        )
        assert log.types[0] == "tool_call.completed", log.types
        assert log.of("tool_call.completed")[0]["tool_call"]["status"] == "expired"
        assert log.types[-1] == "run.completed", log.types
        assert [e["trigger"] for e in log.of("run.started")] == ["resume"]
        await server.idle()
        assert model.calls_made == 2
        assert _count(server, Message, tool_call_id=call["id"]) == 1
        assert _notes(server) == []
        pending = await server.client.get(f"/api/conversations/{conversation_id}/pending")
        assert pending.json() == []
        summary = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        assert summary["status"] == "idle"


async def test_engine_the_sweeper_wins_between_a_decisions_checks_and_its_write(
    engine_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sweep commits after the decision read the call and before it locked it: 409."""
    model = ScriptedChatModel(responses=[_add("contested"), "It expired."])
    async with live_server(engine_settings, model=model) as server:
        _conversation_id, call, _last = await _paused_call(server, "contested")
        registry = server.services.registry
        original_get = registry.get
        swept: list[str] = []
        started: list[bool] = []

        def get_then_sweep(name: str) -> Any:
            if not started:
                started.append(True)
                swept.extend(expire_due(server.services.engine, FAR_FUTURE))
            return original_get(name)

        monkeypatch.setattr(registry, "get", get_then_sweep)
        response = await server.decide(call["id"], type="approve")
        monkeypatch.undo()
        assert swept == [call["id"]], response.text
        assert response.status_code == 409, response.text
        details = response.json()["error"]["details"]
        assert details["status"] == "expired" and details["decision"] is None
        await server.idle()
        row = _row(server, call["id"])
        assert (row.status, row.decided_at) == ("expired", None)
        assert _count(server, Decision, tool_call_id=call["id"]) == 0
        assert _count(server, Message, tool_call_id=call["id"]) == 1
        assert _notes(server) == []
        assert model.calls_made == 2  # the expired call's run went on once


async def test_engine_a_decision_that_won_is_never_expired_by_a_later_sweep(
    engine_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedChatModel(responses=[_add("kept"), "Added."])
    async with live_server(engine_settings, model=model) as server:
        engine = server.services.engine
        conversation_id, call, last = await _paused_call(server, "kept")
        # Hold back the start of the run the decision resumed, so the decided call is still
        # ``interrupted`` when swept.
        held: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
        monkeypatch.setattr(engine, "spawn_soon", lambda *args, **kw: held.append((args, kw)))
        response = await server.decide(call["id"], type="approve")
        assert response.status_code == 200, response.text
        await wait_until(lambda: bool(held), timeout_s=60, what="the resumed run's start")
        assert await engine.db.run(expire_due, engine, FAR_FUTURE) == []
        monkeypatch.undo()
        args, kwargs = held[0]
        engine.spawn_soon(*args, **kwargs)
        log = await collect(server.client, conversation_id, until=terminals(1), last_event_id=last)
        assert log.types[-1] == "run.completed", log.types
        await server.idle()
        assert _row(server, call["id"]).status == "succeeded"
        assert _notes(server) == ["kept"]
        assert _count(server, Message, tool_call_id=call["id"]) == 1


async def test_engine_deadlines_use_the_servers_clock_only(
    engine_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedChatModel(responses=[_add("clock"), _add("skew"), "Fine."])
    async with live_server(engine_settings, model=model) as server:
        deadlines = server.services.engine.deadlines
        server_now = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)
        monkeypatch.setattr(deadlines, "clock", lambda: server_now)
        # The deadline is the server's interrupt time plus the default 24 h.
        _conversation_id, call, _last = await _paused_call(server, "clock")
        assert call["expires_at"] == "2030-06-02T12:00:00Z"
        # The server's clock passes the deadline; no sweep ran: the decision still meets
        # the expiry, and a client claiming an earlier time in ``Date`` changes nothing.
        server_now = datetime(2030, 6, 2, 12, 0, 1, tzinfo=UTC)
        response = await server.client.post(
            f"/api/tool-calls/{call['id']}/decision",
            json={"type": "approve"},
            headers={"Date": "Sat, 01 Jun 2030 12:00:00 GMT"},
        )
        assert response.status_code == 409, response.text
        assert response.json()["error"]["details"]["status"] == "expired"
        # A decision body cannot carry a time either.
        response = await server.decide(call["id"], type="approve", now="2030-06-01T12:00:00Z")
        assert response.status_code == 422, response.text
        await server.idle()
        assert _notes(server) == []


async def test_engine_the_approval_timeout_follows_tool_then_employee_then_setting(
    make_settings: Any,
) -> None:
    model = ScriptedChatModel(
        responses=[_add("a"), _add("b"), _add("c")],
    )
    settings = make_settings(approval_timeout_s=3600)
    async with live_server(settings, model=model) as server:

        async def waits(timeout_s: float) -> None:
            """The next call's deadline is ``timeout_s`` after it was interrupted: after its
            proposal, before the test saw it (seconds apart on a busy machine)."""
            _conversation, call, _last = await _paused_call(server, "x")
            seen = utcnow()
            created = datetime.fromisoformat(call["created_at"].replace("Z", "+00:00"))
            expires = datetime.fromisoformat(call["expires_at"].replace("Z", "+00:00"))
            timeout = timedelta(seconds=timeout_s)
            assert created + timeout <= expires <= seen + timeout, (created, expires, seen)

        await waits(3600)
        patch = await server.client.patch(
            "/api/employees/assistant", json={"approval_timeout_s": 600}
        )
        assert patch.status_code == 200, patch.text
        await waits(600)
        patch = await server.client.patch(
            "/api/employees/assistant",
            json={"tool_approvals": {"notes.add": {"timeout_s": 90}}},
        )
        assert patch.status_code == 200, patch.text
        await waits(90)


async def test_engine_a_decision_racing_the_sweeper_has_exactly_one_outcome(
    engine_settings: Settings,
) -> None:
    """Both at once on the database threads (the sweep with a clock past the deadline)."""
    rounds = 4
    script: list[Any] = []
    for i in range(rounds):
        script += [_add(f"race {i}"), "Done."]
    model = ScriptedChatModel(responses=script)
    async with live_server(engine_settings, model=model) as server:
        engine = server.services.engine
        added: list[str] = []
        for i in range(rounds):
            _conversation_id, call, _last = await _paused_call(server, f"race {i}")
            response, swept = await asyncio.gather(
                server.decide(call["id"], type="approve"),
                engine.db.run(expire_due, engine, FAR_FUTURE),
            )
            await server.idle()
            row = _row(server, call["id"])
            if response.status_code == 200:
                assert swept == [], "the sweeper closed a call whose decision was accepted"
                assert row.status == "succeeded" and row.decided_at is not None
                added.append(f"race {i}")
            else:
                assert response.status_code == 409, response.text
                assert response.json()["error"]["details"]["status"] == "expired"
                assert swept == [call["id"]]
                assert row.status == "expired" and row.decided_at is None
                assert _count(server, Decision, tool_call_id=call["id"]) == 0
            assert _count(server, Message, tool_call_id=call["id"]) == 1
            assert _notes(server) == sorted(added)


async def test_engine_an_unanswered_question_expires_as_not_answered_in_time(
    engine_settings: Settings,
) -> None:
    question = scripted_message(
        "One question.",
        ("ask_choice", {"question": "Tea or coffee?", "options": ["Tea", "Coffee"]}),
    )
    model = ScriptedChatModel(responses=[question, "No answer; moving on."])
    async with live_server(engine_settings, model=model) as server:
        patch = await server.client.patch(
            "/api/employees/scout", json={"tool_approvals": {"ask.choice": {"timeout_s": 1}}}
        )
        assert patch.status_code == 200, patch.text
        created = await server.client.post("/api/conversations", json={"employee": "scout"})
        conversation_id = created.json()["id"]
        await server.say(conversation_id, "ask me something")
        log = await collect(server.client, conversation_id, until=terminals(2), timeout_s=30)
        (completed,) = log.of("tool_call.completed")
        assert completed["tool_call"]["status"] == "expired"
        assert completed["message"]["content"].startswith("Not answered in time")
        assert log.types[-1] == "run.completed", log.types
