"""Engine: a start does not wait for the work it finds (overdue calls, decided pauses).

Several conversations are paused on calls whose deadlines pass while the server is stopped.
On the next start the expiry sweeper's first sweep is held (its per-call step waits on a gate)
to stand for a long sweep of a thousand calls. Must: the server starts and ``/api/health``
answers while the sweep is held and the calls are still ``interrupted``; a decision arriving
meanwhile meets ``expired`` (the decision closes the overdue call itself); once the sweep goes
on, every overdue call ends ``expired`` exactly once (one audit record, decider ``timeout``),
each conversation's run goes on once, and nothing ran.

Likewise, pauses decided just before the server stopped (the decision recorded, its resume
not started) resume after the next start, in the background: the server answers while their
resumes are held, and once they go on each conversation's run resumes once and each approved
call runs exactly once.
"""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, update
from sqlmodel import col, select

from interlock.engine import decisions, expiry, runner
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import AuditRecord, ToolCall
from interlock.storage.models import utcnow
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import collect, terminals
from support.waits import wait_until

CONVERSATIONS = 3
GATE_GUARD_S = 30.0
"""The held sweep goes on after this long in any case (a failing test must not hang)."""


def _statuses(server: LiveServer, call_ids: list[str]) -> list[str]:
    with server.services.db.session() as session:
        rows = session.exec(select(ToolCall).where(col(ToolCall.id).in_(call_ids))).all()
        return sorted(str(row.status) for row in rows)


async def test_engine_a_start_answers_while_overdue_calls_are_still_being_expired(
    engine_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = ScriptedChatModel(
        responses=[
            scripted_message("Adding.", ("notes_add", {"text": f"late {i}"}))
            for i in range(CONVERSATIONS)
        ]
    )
    paused: list[tuple[str, str]] = []
    async with live_server(engine_settings, model=before) as server:
        for i in range(CONVERSATIONS):
            conversation_id = await server.new_conversation()
            await server.say(conversation_id, f"add a note late {i}")
            log = await collect(server.client, conversation_id, until=terminals(1))
            assert log.types[-1] == "run.paused", log.types
            paused.append((conversation_id, log.of("tool_call.interrupted")[0]["tool_call"]["id"]))
        await server.idle()
        db = server.services.db
    call_ids = [call_id for _c, call_id in paused]

    # While the server is down, every deadline passes.
    with db.session() as session:
        session.exec(  # type: ignore[call-overload]
            update(ToolCall)
            .where(col(ToolCall.id).in_(call_ids))
            .values(expires_at=utcnow() - timedelta(minutes=5))
        )
        session.commit()

    gate = threading.Event()
    held = threading.Event()
    real_expire_call = expiry.expire_call

    def gated_expire_call(*args: Any, **kwargs: Any) -> tuple[str, int] | None:
        held.set()
        gate.wait(GATE_GUARD_S)
        return real_expire_call(*args, **kwargs)

    monkeypatch.setattr(expiry, "expire_call", gated_expire_call)
    guard = threading.Timer(GATE_GUARD_S, gate.set)
    guard.start()
    after = ScriptedChatModel(
        responses=["It was not approved in time, so I left it."] * CONVERSATIONS
    )
    try:
        async with live_server(engine_settings, model=after) as server:
            await wait_until(held.is_set, timeout_s=60, what="the held first expiry sweep")
            health = await server.client.get("/api/health")
            assert health.status_code == 200, health.text
            assert _statuses(server, call_ids) == ["interrupted"] * CONVERSATIONS

            # A decision arriving first meets the recorded outcome: expired, not run.
            first_call = paused[0][1]
            late = await server.decide(first_call, type="approve")
            assert late.status_code == 409, late.text
            assert late.json()["error"]["details"]["status"] == "expired"

            gate.set()
            for conversation_id, _call_id in paused:
                log = await collect(server.client, conversation_id, until=terminals(2))
                assert log.types[-1] == "run.completed", log.types
            await server.idle()
            assert _statuses(server, call_ids) == ["expired"] * CONVERSATIONS
            assert after.calls_made == CONVERSATIONS  # each run went on once
            assert stored_notes(server.services.db) == []
            with server.services.db.session() as session:
                records = session.exec(
                    select(AuditRecord.tool_call_id, AuditRecord.decider, func.count())
                    .where(col(AuditRecord.tool_call_id).in_(call_ids))
                    .group_by(col(AuditRecord.tool_call_id), col(AuditRecord.decider))
                ).all()
            assert sorted((c, d, n) for c, d, n in records) == sorted(
                (call_id, "timeout", 1) for call_id in call_ids
            )
    finally:
        gate.set()
        guard.cancel()


async def test_engine_a_start_answers_while_decided_pauses_are_still_resuming(
    engine_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    texts = [f"decided {i}" for i in range(CONVERSATIONS)]
    before = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": t})) for t in texts]
    )
    conversations: list[str] = []
    async with live_server(engine_settings, model=before) as server:
        # The server stops between each decision and its resume: record, do not resume
        # (neither with the decision, nor after it, nor in a periodic sweep that finds the
        # decided pause once it is older than the lease: a slow machine gets there).
        monkeypatch.setattr(decisions, "resume_claim", lambda *args: None)
        monkeypatch.setattr(server.services.engine, "schedule_resume", lambda *args: None)

        async def no_resume(*_args: object) -> None:
            return None

        monkeypatch.setattr(server.services.engine, "resume_if_decided", no_resume)
        for text in texts:
            conversation_id = await server.new_conversation()
            await server.say(conversation_id, f"add a note {text}")
            log = await collect(server.client, conversation_id, until=terminals(1))
            assert log.types[-1] == "run.paused", log.types
            call_id = log.of("tool_call.interrupted")[0]["tool_call"]["id"]
            decided = await server.decide(call_id, type="approve")
            assert decided.status_code == 200, decided.text
            conversations.append(conversation_id)
        await server.idle()
        assert stored_notes(server.services.db) == []

    gate = threading.Event()
    held = threading.Event()
    real_claim_resume = runner.claim_resume

    def gated_claim_resume(*args: Any, **kwargs: Any) -> str | None:
        held.set()
        gate.wait(GATE_GUARD_S)
        return real_claim_resume(*args, **kwargs)

    monkeypatch.setattr(runner, "claim_resume", gated_claim_resume)
    guard = threading.Timer(GATE_GUARD_S, gate.set)
    guard.start()
    after = ScriptedChatModel(responses=["Added it."] * CONVERSATIONS)
    try:
        async with live_server(engine_settings, model=after) as server:
            await wait_until(held.is_set, timeout_s=60, what="the held resume")
            health = await server.client.get("/api/health")
            assert health.status_code == 200, health.text
            assert stored_notes(server.services.db) == []

            gate.set()
            for conversation_id in conversations:
                log = await collect(server.client, conversation_id, until=terminals(2))
                assert log.types[-1] == "run.completed", log.types
                assert [e["trigger"] for e in log.of("run.started")] == ["message", "resume"]
            await server.idle()
            assert after.calls_made == CONVERSATIONS  # each run went on once
            assert sorted(text for _, text in stored_notes(server.services.db)) == texts
    finally:
        gate.set()
        guard.cancel()
