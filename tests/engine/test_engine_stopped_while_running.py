"""A call closed while its tool runs is never recorded ``cancelled``: its effect may happen.

A tool that writes blocks (in its worker thread) on an event the test holds. While it runs,
the person cancels the run, or sends a new message to a conversation whose run is gone. The
call closes ``failed`` with ``outcome_unknown`` and "Stopped while running ... it may have
happened" (one tool message, one ``tool_call.completed``, never run again); then the test
lets the tool finish: its effect happens, and the call now says so once ("happened after it
was stopped", ``tool_call.finished_late``, an audit record), its tool message unchanged and
nothing stored twice. No sleeps: every wait is bounded.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col

from interlock.engine.messages import NEW_MESSAGE_REASON
from interlock.engine.tool_texts import CloseReason
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import Conversation, Run, RunStatus
from support.late_gates import Gate, call_rows, only_call, slow_tool, started
from support.live import WAIT_S, LiveServer, live_server
from support.waits import wait_until


async def _started(server: LiveServer, gate: Gate) -> tuple[str, str]:
    """A conversation whose run is inside the gated tool: its id and the call's id."""
    slow = slow_tool(
        gate.write,
        name="test.slow_write",
        title="Write slowly",
        description="Writes a line, slowly.",
    )
    server.services.registry.register_many([slow])
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, "write it")
    await started(gate)
    call = only_call(server, conversation_id)
    assert call.status == "running"
    return conversation_id, call.id


def _model() -> ScriptedChatModel:
    return ScriptedChatModel(
        responses=[scripted_message("Writing.", ("test_slow_write", {"text": "x"})), "Ok.", "Ok."]
    )


async def _finish(gate: Gate) -> None:
    """Let the tool finish (its effect happens) and wait until it did."""
    gate.release.set()
    assert await asyncio.to_thread(gate.done.wait, WAIT_S), "the tool never finished"


def _history(server: LiveServer, conversation_id: str, call_id: str) -> dict[str, Any]:
    rows = call_rows(server, conversation_id, call_id)
    completed = [e for e in rows.events if e.type == "tool_call.completed" and call_id in e.data]
    return {
        "call": rows.call,
        "messages": [(m.content, m.tool_status) for m in rows.messages],
        "completed": [e.data for e in completed],
        "seqs": rows.seqs,
        "late": rows.types.count("tool_call.finished_late"),
        "audit": [(a.outcome, a.reason) for a in rows.audit],
    }


def _assert_stopped(
    found: dict[str, Any], reason: str | CloseReason, *, late: bool = False
) -> None:
    """Closed once as "stopped while running: it may have happened", never as cancelled:
    on the card in the owner's words, in the audit record and to the model in theirs;
    ``late``: then its tool returned, and the call says it happened after it was stopped."""
    why = reason if isinstance(reason, CloseReason) else CloseReason.same(reason)
    call = found["call"]
    said = f"Stopped while running ({why.owner}): it may have happened. It was not run again."
    told = f"Stopped while running ({why.model}): it may have happened. It was not run again."
    recorded = f"Stopped while running ({why.record}): it may have happened. It was not run again."
    if late:
        assert (call.status, call.error_code, call.error_message) == ("succeeded", None, None)
        assert call.result_text == "Wrote x." and call.finished_late_at is not None
    else:
        assert (call.status, call.error_code, call.error_message) == (
            "failed",
            "outcome_unknown",
            said,
        )
        assert call.result_text is None and call.finished_late_at is None
    assert call.started_at is not None and call.executed_args == {"text": "x"}
    assert found["messages"] == [
        (
            f"Error [outcome_unknown]: {told} Hint: Check whether it took effect before "
            "doing it again.",
            "error",
        )
    ]
    [event] = found["completed"]
    assert '"status":"failed"' in event.replace(" ", "")
    assert '"cancelled"' not in event
    assert found["seqs"] == list(range(1, len(found["seqs"]) + 1))
    assert found["late"] == (1 if late else 0)
    # The closer's act, with what it left: the record of the allowed run may come first.
    assert [a for a in found["audit"] if a[0] != "allowed"] == [("cancelled", recorded)] + (
        [("finished_late", "Happened after it was stopped: Wrote x.")] if late else []
    )


async def test_a_run_cancelled_while_its_tool_runs_says_it_may_have_happened(
    engine_settings: Settings,
) -> None:
    gate = Gate()
    async with live_server(engine_settings, model=_model()) as server:
        try:
            conversation_id, call_id = await _started(server, gate)
            cancelled = await server.client.post(f"/api/conversations/{conversation_id}/cancel")
            assert cancelled.status_code == 200, cancelled.text
            await server.idle()
            _assert_stopped(_history(server, conversation_id, call_id), "the run was cancelled")
            detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
            [shown] = [c for m in detail["messages"] for c in m.get("tool_calls") or []]
            assert (shown["status"], shown["error"]["code"]) == ("failed", "outcome_unknown")
            # Undo cannot put anything back, and does not claim it changed nothing.
            undo = await server.client.post(f"/api/tool-calls/{call_id}/undo")
            assert undo.status_code == 409, undo.text
            assert undo.json()["error"] == {
                "code": "not_undoable",
                "message": "“Write slowly” may or may not have happened: it did not finish, "
                "and it recorded no change that can be undone here. Check whether it took "
                "effect; if it did, reverse it yourself or ask the employee to.",
            }

            await _finish(gate)  # it did happen after all: the call now says so, once
            await server.services.engine.late.wait(WAIT_S)
            assert gate.effects == ["x"]
            found = _history(server, conversation_id, call_id)
            _assert_stopped(found, "the run was cancelled", late=True)
            detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
            [shown] = [c for m in detail["messages"] for c in m.get("tool_calls") or []]
            assert (shown["status"], shown["error"]) == ("succeeded", None)
            assert shown["finished_late_at"] is not None
        finally:
            gate.release.set()


async def test_a_new_message_closing_a_running_call_says_it_may_have_happened(
    engine_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    """The run driving the call is gone (its row ended, the conversation released, as a lost
    worker leaves it before repair) while its tool still runs; a new message closes the call,
    then the tool's result arrives: recorded on the call as happened after it was stopped."""
    caplog.set_level(logging.WARNING, logger="interlock.engine.calls")
    gate = Gate()
    async with live_server(engine_settings, model=_model()) as server:
        try:
            conversation_id, call_id = await _started(server, gate)
            with server.services.db.session() as session:
                conversation = session.get(Conversation, conversation_id)
                assert conversation is not None and conversation.active_run_id is not None
                session.exec(  # type: ignore[call-overload]
                    update(Run)
                    .where(col(Run.id) == conversation.active_run_id)
                    .values(status=RunStatus.failed)
                )
                conversation.active_run_id = None
                session.add(conversation)
                session.commit()
            sent = await server.client.post(
                f"/api/conversations/{conversation_id}/messages", json={"content": "hello"}
            )
            assert sent.status_code == 202, sent.text
            await wait_until(
                lambda: _history(server, conversation_id, call_id)["completed"] != [],
                timeout_s=WAIT_S,
                what="the call closed by the new message",
            )
            _assert_stopped(_history(server, conversation_id, call_id), NEW_MESSAGE_REASON)

            await _finish(gate)
            await wait_until(
                lambda: _history(server, conversation_id, call_id)["late"] == 1,
                timeout_s=WAIT_S,
                what="the late result recorded",
            )
            await server.idle()
            assert gate.effects == ["x"]
            _assert_stopped(
                _history(server, conversation_id, call_id), NEW_MESSAGE_REASON, late=True
            )
            assert not any("not stored" in r.getMessage() for r in caplog.records)
        finally:
            gate.release.set()
