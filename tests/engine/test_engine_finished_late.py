"""A call stopped while its tool ran, whose tool then returns: its real outcome is recorded once.

The tool writes through ``ctx.store`` (undoable) and blocks, in its worker thread, on an event
the test holds. The person stops the run: the call says "may have happened". Then the test
lets the tool finish: the call now says it happened after it was stopped, with its result, one
``tool_call.finished_late`` event and one ``finished_late`` audit record; Undo works; the run
is not resumed and the model gets no new tool message, but its next turn's prompt says what
really happened. A late failure is recorded as such; a tool that never returns (shutdown)
leaves "may have happened"; a deleted conversation takes the late result with it. Every wait
is bounded; no sleeps.
"""

from __future__ import annotations

from interlock.engine.late import close_late
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import ToolCall
from support.late_gates import Gate, call_rows, finish_late, only_call, slow_tool, started
from support.live import WAIT_S, LiveServer, live_server
from support.sse import collect

STOPPED = (
    "Stopped while running (the run was cancelled): it may have happened. It was not run again."
)


def _model() -> ScriptedChatModel:
    return ScriptedChatModel(
        responses=[scripted_message("Adding.", ("test_slow_note", {"text": "buy milk"})), "Ok."]
    )


async def _stopped(server: LiveServer, gate: Gate) -> tuple[str, str]:
    """A conversation whose run was cancelled while its tool ran: its id and the call's."""
    server.services.registry.register(slow_tool(gate.add_note))
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, "note it")
    await started(gate)
    cancelled = await server.client.post(f"/api/conversations/{conversation_id}/cancel")
    assert cancelled.status_code == 200, cancelled.text
    await server.idle()
    call = only_call(server, conversation_id)
    assert (call.status, call.error_code, call.error_message) == (
        "failed",
        "outcome_unknown",
        STOPPED,
    )
    assert call.finished_late_at is None
    return conversation_id, call.id


async def test_a_stopped_call_whose_tool_returns_says_it_happened_once(
    engine_settings: Settings,
) -> None:
    gate = Gate()
    model = _model()
    async with live_server(engine_settings, model=model) as server:
        try:
            conversation_id, call_id = await _stopped(server, gate)
            before = call_rows(server, conversation_id, call_id)
            await finish_late(server, gate)
            found = call_rows(server, conversation_id, call_id)
            call = found.call
            said = "Happened after it was stopped: Added note 1: buy milk"
            assert (call.status, call.error_code, call.error_message) == ("succeeded", None, None)
            assert call.result_text == "Added note 1: buy milk"
            assert call.finished_late_at is not None and call.undo_state == "available"
            # The one tool message (what the model was told then) stays; the run is not resumed.
            assert found.contents == before.contents and len(before.contents) == 1
            assert found.types == [*before.types, "tool_call.finished_late"]
            assert found.seqs == list(range(1, len(found.seqs) + 1))
            assert found.acts == [("cancelled", STOPPED), ("finished_late", said)]
            assert len(model.received) == 1

            # What the person sees on a reload, and on the stream's replay.
            detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
            [shown] = [c for m in detail["messages"] for c in m.get("tool_calls") or []]
            assert (shown["status"], shown["error"], shown["result_text"]) == (
                "succeeded",
                None,
                "Added note 1: buy milk",
            )
            assert shown["finished_late_at"] is not None
            assert shown["undo"]["state"] == "available"
            replay = await collect(
                server.client,
                conversation_id,
                until=lambda log: "tool_call.finished_late" in log.types,
                last_event_id="0",
                timeout_s=WAIT_S,
            )
            [late] = replay.of("tool_call.finished_late")
            assert late["tool_call"]["status"] == "succeeded"
            assert late["tool_call"]["finished_late_at"] is not None

            # The tool's figures count the late outcome beside the stop.
            metrics = (await server.client.get("/api/metrics/tools")).json()
            [row] = [r for r in metrics["tools"] if r["tool"] == "test.slow_note"]
            assert (row["calls"], row["cancelled"], row["finished_late"]) == (1, 1, 1)

            # Undo works as for any write.
            undo = await server.client.post(f"/api/tool-calls/{call_id}/undo")
            assert undo.status_code == 200, undo.text

            # The next turn: the model's prompt says what really happened; history is unchanged.
            await server.say(conversation_id, "did it work?")
            await server.idle()
            prompt = model.received[1][0].content
            assert "## Finished after they were stopped" in prompt
            assert (
                f"“Add a note slowly” (tool call {call_id}): happened after it was stopped: "
                in (prompt)
            )
            [stop_message] = [m for m in model.received[1] if getattr(m, "tool_call_id", "")]
            assert stop_message.content == before.contents[0]
        finally:
            gate.release.set()


async def test_a_stopped_call_whose_tool_fails_late_says_it_failed(
    engine_settings: Settings,
) -> None:
    gate = Gate(fail=True)
    async with live_server(engine_settings, model=_model()) as server:
        try:
            conversation_id, call_id = await _stopped(server, gate)
            await finish_late(server, gate)
            found = call_rows(server, conversation_id, call_id)
            call = found.call
            assert (call.status, call.error_code, call.error_message) == (
                "failed",
                "upstream_error",
                "The list is locked by someone else.",
            )
            assert call.finished_late_at is not None and call.undo_state is None
            assert found.acts[-1] == (
                "finished_late",
                "Failed after it was stopped: The list is locked by someone else.",
            )
            assert found.types.count("tool_call.finished_late") == 1
        finally:
            gate.release.set()


async def test_a_late_result_is_recorded_once_whatever_races_it(
    engine_settings: Settings,
) -> None:
    """A second cancel and a new message before the tool returns; then the same result
    delivered twice: recorded once."""
    gate = Gate()
    async with live_server(engine_settings, model=_model()) as server:
        try:
            conversation_id, call_id = await _stopped(server, gate)
            again = await server.client.post(f"/api/conversations/{conversation_id}/cancel")
            assert again.status_code == 200, again.text
            sent = await server.client.post(
                f"/api/conversations/{conversation_id}/messages", json={"content": "hello"}
            )
            assert sent.status_code == 202, sent.text
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
            assert [a[0] for a in found.acts] == ["cancelled", "finished_late"]
            assert found.seqs == list(range(1, len(found.seqs) + 1))
        finally:
            gate.release.set()


async def test_a_tool_that_never_returns_leaves_may_have_happened(
    engine_settings: Settings,
) -> None:
    """The server stops following the tool (its shutdown): the call stays as it was."""
    gate = Gate()
    async with live_server(engine_settings, model=_model()) as server:
        try:
            conversation_id, call_id = await _stopped(server, gate)
            await server.services.engine.late.aclose(WAIT_S)
            gate.release.set()
            found = call_rows(server, conversation_id, call_id)
            assert found.call.error_code == "outcome_unknown"
            assert found.call.finished_late_at is None
            assert "tool_call.finished_late" not in found.types
        finally:
            gate.release.set()


async def test_a_conversation_deleted_while_a_stopped_tool_runs_is_gone(
    engine_settings: Settings,
) -> None:
    """The conversation is idle once stopped: it can be deleted at once (as the page says
    nothing runs), and the tool's late result then finds nothing to record."""
    gate = Gate()
    async with live_server(engine_settings, model=_model()) as server:
        try:
            conversation_id, call_id = await _stopped(server, gate)
            deleted = await server.client.delete(f"/api/conversations/{conversation_id}")
            assert deleted.status_code == 204, deleted.text
            await finish_late(server, gate)
            with server.services.db.session() as session:
                assert session.get(ToolCall, call_id) is None
        finally:
            gate.release.set()
