"""C31: a pending call expires while nobody is there (oversight).

A call with a 2 s approval timeout waits; the server stops for 5 s; it starts again; then the
person approves. Must: the call is ``expired`` (not approved) as the server starts, the
model got one tool message saying it was not approved in time, the run went on once, the late
approval gets 409 with the recorded outcome, and the audit names ``timeout`` as the decider.

"Within a second of start-up" is checked by what closes the call, not by a clock (a loaded
machine can stretch any second): the expiry sweep that the start itself begins, its first,
closes it before anyone asks (no request is made until that sweep is over) and without
waiting for the sweep interval (an hour here). That sweep's own time is the delay: a query
and the call's closing, not any wait.
"""

from __future__ import annotations

import asyncio
import threading
from datetime import datetime, timedelta
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from sqlalchemy import func
from sqlmodel import select

from interlock.engine import expiry
from interlock.models import ScriptedChatModel, scripted_message
from interlock.storage import AuditRecord, Message, ToolCall
from interlock.storage.models import utcnow
from support.live import live_server
from support.notes import stored_notes
from support.sse import collect, terminals
from support.waits import wait_until

TIMEOUT_S = 2
DOWN_S = 5
SWEEP_WAIT_S = 30.0
"""Longest wait for the start-up sweep (a failing test must not hang)."""


def _parse(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


async def test_case_c31_pending_call_expires_while_nobody_is_there(
    make_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A sweep interval no test waits for: the call closes because the sweeper looks at start-up.
    settings = make_settings(approval_timeout_s=TIMEOUT_S, approval_sweep_interval_s=3600)
    before = ScriptedChatModel(
        responses=[scripted_message("Adding it.", ("notes_add", {"text": "too late"}))]
    )
    async with live_server(settings, model=before) as server:
        # This first server never sweeps: on a busy machine it could still be running (pausing,
        # stopping) when the 2 s pass, and close the call itself. The case is a deadline that
        # passes while no server runs.
        await server.services.engine.sweeper.aclose()
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add a note: too late")
        log = await collect(server.client, conversation_id, until=terminals(1))
        seen_at = utcnow()
        assert log.types[-1] == "run.paused", log.types
        call = log.of("tool_call.interrupted")[0]["tool_call"]
        deadline = _parse(call["expires_at"])
        # The deadline is 2 s after the call was interrupted: after it was proposed, before
        # the test saw it (a busy machine can put seconds between the two: 2.06 s seen under load).
        timeout = timedelta(seconds=TIMEOUT_S)
        assert _parse(call["created_at"]) + timeout <= deadline <= seen_at + timeout
    stopped_at = utcnow()

    # The server is down for 5 s; the call's deadline passes meanwhile.
    await wait_until(
        lambda: utcnow() >= stopped_at + timedelta(seconds=DOWN_S),
        timeout_s=DOWN_S + 5,
        what="the 5 s downtime",
    )
    assert utcnow() > deadline

    # What each expiry sweep of the next server closes, in order.
    sweeps: list[list[str]] = []
    first_sweep_over = threading.Event()
    real_expire_due = expiry.expire_due

    def counted_expire_due(engine: Any, now: datetime | None = None) -> list[str]:
        closed = real_expire_due(engine, now)
        sweeps.append(closed)
        first_sweep_over.set()
        return closed

    monkeypatch.setattr(expiry, "expire_due", counted_expire_due)

    after = ScriptedChatModel(responses=["It was not approved in time, so I did not add it."])
    async with live_server(settings, model=after) as server:
        # The expiry sweeper's first sweep begins as the server starts and runs while it
        # already answers (a thousand overdue calls must not hold up a start). Nobody asks
        # anything until that sweep is over: it alone closes the call, not a request nor a
        # later sweep (the interval is an hour).
        assert await asyncio.to_thread(first_sweep_over.wait, SWEEP_WAIT_S), "no sweep at start"
        assert sweeps[0] == [call["id"]], sweeps
        pending = await server.client.get(f"/api/conversations/{conversation_id}/pending")
        assert pending.status_code == 200, pending.text
        assert pending.json() == []
        with server.services.db.session() as session:
            row = session.get(ToolCall, call["id"])
            assert row is not None
            assert row.status == "expired"
            assert row.finished_at is not None
            assert row.finished_at >= deadline  # closed by this server, past its deadline

        # The run went on once: a resume run, one model call, completed.
        log = await collect(server.client, conversation_id, until=terminals(2))
        assert [t for t in log.types if t in ("run.started", "run.paused", "run.completed")][
            -2:
        ] == ["run.started", "run.completed"]
        await server.idle()
        assert after.calls_made == 1
        (completed,) = [
            e for e in log.of("tool_call.completed") if e["tool_call"]["id"] == call["id"]
        ]
        assert completed["tool_call"]["status"] == "expired"
        assert completed["tool_call"]["error"]["code"] == "expired"
        assert completed["message"]["tool_status"] == "error"
        assert completed["message"]["content"].startswith("Not approved in time")

        # The model got exactly one tool message for the call, saying so.
        tool_messages = [
            m
            for m in after.received[0]
            if isinstance(m, ToolMessage) and m.tool_call_id == call["id"]
        ]
        assert len(tool_messages) == 1
        assert "not approved in time" in str(tool_messages[0].content).lower()
        assert "do not retry" in str(tool_messages[0].content).lower()
        with server.services.db.session() as session:
            count = session.exec(
                select(func.count()).select_from(Message).where(Message.tool_call_id == call["id"])
            ).one()
            assert count == 1
            assert stored_notes(server.services.db) == []
            records = session.exec(
                select(AuditRecord).where(AuditRecord.tool_call_id == call["id"])
            ).all()
            assert [(r.decider, r.outcome) for r in records] == [("timeout", "expired")]

        # The late approval: 409 with the recorded outcome.
        late = await server.decide(call["id"], type="approve")
        assert late.status_code == 409, late.text
        error = late.json()["error"]
        assert error["code"] == "not_interrupted"
        assert error["details"]["status"] == "expired"
        assert error["details"]["decision"] is None
        assert error["details"]["tool_call"]["status"] == "expired"
        assert error["details"]["tool_call"]["error"]["code"] == "expired"
        await server.idle()
        assert after.calls_made == 1
        with server.services.db.session() as session:
            assert stored_notes(server.services.db) == []
            records = session.exec(
                select(AuditRecord).where(AuditRecord.tool_call_id == call["id"])
            ).all()
            assert len(records) == 1  # the refused approval left no record
