"""A thread tool past its timeout, which returns after all: its real outcome is recorded once.

The tool writes through ``ctx.store`` (undoable) and blocks, in its worker thread, on an event
the test holds, past its small timeout. The call closes as timed out, saying honestly that it
is still running and may still happen, and the run goes on. Then the test lets the tool
finish: the call now says it happened after it timed out, with its result, one
``tool_call.finished_late`` event and one ``finished_late`` audit record, exactly as a stopped
call's late return (:mod:`interlock.engine.late`). A new message, a cancel or a second
delivery racing it record nothing more; a deleted conversation takes it with it. Every wait is
bounded; no sleeps.
"""

from __future__ import annotations

from interlock.engine.late import close_late
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import ToolCall
from support.late_gates import CallRows, Gate, call_rows, finish_late, only_call, slow_tool, started
from support.live import WAIT_S, LiveServer, live_server
from support.sse import collect

TIMEOUT_S = 0.3
TIMED_OUT = (
    "The tool “Add a note slowly” did not finish within 0.3 seconds and is still running, "
    "so it may still happen."
)


def _model() -> ScriptedChatModel:
    return ScriptedChatModel(
        responses=[
            scripted_message("Adding.", ("test_slow_note", {"text": "buy milk"})),
            "It timed out.",
            "Ok.",
        ]
    )


async def _timed_out(server: LiveServer, gate: Gate) -> tuple[str, str]:
    """A conversation whose call timed out while its tool still runs: its id and the call's."""
    server.services.registry.register(slow_tool(gate.add_note, timeout_s=TIMEOUT_S))
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, "note it")
    await started(gate)
    await server.idle()  # the run goes on past the timeout, and completes
    call = only_call(server, conversation_id)
    assert (call.status, call.error_code, call.error_message) == ("failed", "timeout", TIMED_OUT)
    assert call.finished_late_at is None and call.started_at is not None
    assert not gate.release.is_set()
    return conversation_id, call.id


def _late_reasons(found: CallRows) -> list[str | None]:
    return [reason for outcome, reason in found.acts if outcome == "finished_late"]


async def test_a_timed_out_call_whose_tool_returns_says_it_happened_once(
    engine_settings: Settings,
) -> None:
    gate = Gate()
    model = _model()
    async with live_server(engine_settings, model=model) as server:
        try:
            conversation_id, call_id = await _timed_out(server, gate)
            before = call_rows(server, conversation_id, call_id)
            # The model was told it may still happen, not to try again.
            [told] = before.contents
            assert told.startswith(f"Error [timeout]: {TIMED_OUT}"), told
            assert "Do not run it again unless the person asks" in told
            await finish_late(server, gate)

            found = call_rows(server, conversation_id, call_id)
            call = found.call
            said = "Happened after it timed out: Added note 1: buy milk"
            assert (call.status, call.error_code, call.error_message) == ("succeeded", None, None)
            assert call.result_text == "Added note 1: buy milk"
            assert call.finished_late_at is not None and call.finished_late_after == "timeout"
            assert call.undo_state == "available"
            assert found.contents == before.contents  # one tool message; no resume
            assert found.types == [*before.types, "tool_call.finished_late"]
            assert found.seqs == list(range(1, len(found.seqs) + 1))
            assert _late_reasons(found) == [said]
            assert len(model.received) == 2

            detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
            [shown] = [c for m in detail["messages"] for c in m.get("tool_calls") or []]
            assert (shown["status"], shown["result_text"]) == (
                "succeeded",
                "Added note 1: buy milk",
            )
            assert shown["finished_late_after"] == "timeout"
            metrics = (await server.client.get("/api/metrics/tools")).json()
            [row] = [r for r in metrics["tools"] if r["tool"] == "test.slow_note"]
            assert (row["calls"], row["cancelled"], row["finished_late"]) == (1, 0, 1)
            replay = await collect(
                server.client,
                conversation_id,
                until=lambda log: "tool_call.finished_late" in log.types,
                last_event_id="0",
                timeout_s=WAIT_S,
            )
            [late] = replay.of("tool_call.finished_late")
            assert late["tool_call"]["finished_late_after"] == "timeout"

            # The next turn's prompt says what really happened.
            await server.say(conversation_id, "did it work?")
            await server.idle()
            prompt = model.received[2][0].content
            assert (
                f"“Add a note slowly” (tool call {call_id}): happened after it timed out: "
                in prompt
            )
        finally:
            gate.release.set()


async def test_a_timed_out_call_whose_tool_fails_late_says_it_failed(
    engine_settings: Settings,
) -> None:
    gate = Gate(fail=True)
    async with live_server(engine_settings, model=_model()) as server:
        try:
            conversation_id, call_id = await _timed_out(server, gate)
            await finish_late(server, gate)
            found = call_rows(server, conversation_id, call_id)
            call = found.call
            assert (call.status, call.error_code, call.error_message) == (
                "failed",
                "upstream_error",
                "The list is locked by someone else.",
            )
            assert call.finished_late_after == "timeout" and call.undo_state is None
            assert _late_reasons(found) == [
                "Failed after it timed out: The list is locked by someone else."
            ]
            assert found.types.count("tool_call.finished_late") == 1
        finally:
            gate.release.set()


async def test_a_late_result_after_a_timeout_is_recorded_once_whatever_races_it(
    engine_settings: Settings,
) -> None:
    """A new message and a cancel before the tool returns; then the same result delivered
    twice: recorded once."""
    gate = Gate()
    async with live_server(engine_settings, model=_model()) as server:
        try:
            conversation_id, call_id = await _timed_out(server, gate)
            sent = await server.client.post(
                f"/api/conversations/{conversation_id}/messages", json={"content": "hello"}
            )
            assert sent.status_code == 202, sent.text
            cancelled = await server.client.post(f"/api/conversations/{conversation_id}/cancel")
            assert cancelled.status_code == 200, cancelled.text
            await server.idle()
            await finish_late(server, gate)
            services = server.services
            with services.db.session() as session:
                call = session.get(ToolCall, call_id)
                assert call is not None
                outcome = {"status": "succeeded", "text": "again"}
                assert not close_late(session, services.bus, services.registry, call, outcome)
            found = call_rows(server, conversation_id, call_id)
            assert found.call.result_text == "Added note 1: buy milk"
            assert found.types.count("tool_call.finished_late") == 1
            assert [a[0] for a in found.acts].count("finished_late") == 1
            assert found.seqs == list(range(1, len(found.seqs) + 1))
        finally:
            gate.release.set()


async def test_a_conversation_deleted_while_a_timed_out_tool_runs_is_gone(
    engine_settings: Settings,
) -> None:
    gate = Gate()
    async with live_server(engine_settings, model=_model()) as server:
        try:
            conversation_id, call_id = await _timed_out(server, gate)
            deleted = await server.client.delete(f"/api/conversations/{conversation_id}")
            assert deleted.status_code == 204, deleted.text
            await finish_late(server, gate)
            with server.services.db.session() as session:
                assert session.get(ToolCall, call_id) is None
        finally:
            gate.release.set()
