"""Engine: the history the model is given stays valid whatever happens to the calls.

Every model call of a test is checked with :func:`assert_openai_order`: each ``AIMessage``
with tool calls is followed at once by exactly one ``ToolMessage`` per call id, in call order,
and no ``ToolMessage`` stands anywhere else. Covered: edits (the model sees the EXECUTED args),
``respond`` decisions (the tool does not run; the person's text is the tool message), the step
limit (``run.failed`` with ``step_limit``, every call still answered), and a new user message
while calls are pending (they are cancelled with a recorded reason, then the new turn runs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from interlock.engine.messages import NEW_MESSAGE_REASON
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import EventLog, collect, terminals


def assert_openai_order(messages: Sequence[BaseMessage]) -> None:
    """Check OpenAI's tool-message ordering rules on one model input."""
    assert messages and isinstance(messages[0], SystemMessage)
    index = 0
    while index < len(messages):
        message = messages[index]
        assert not isinstance(message, ToolMessage), f"stray ToolMessage at {index}: {message!r}"
        if isinstance(message, AIMessage) and message.tool_calls:
            ids = [call["id"] for call in message.tool_calls]
            assert len(set(ids)) == len(ids), ids
            answers = messages[index + 1 : index + 1 + len(ids)]
            assert all(isinstance(m, ToolMessage) for m in answers), (index, answers)
            assert [m.tool_call_id for m in answers if isinstance(m, ToolMessage)] == ids
            index += 1 + len(ids)
            continue
        index += 1


def assert_every_model_input_valid(model: ScriptedChatModel) -> None:
    assert model.received
    for messages in model.received:
        assert_openai_order(messages)


async def _detail(server: LiveServer, conversation_id: str) -> dict[str, Any]:
    response = await server.client.get(f"/api/conversations/{conversation_id}")
    assert response.status_code == 200, response.text
    return dict(response.json())


async def _read(server: LiveServer, conversation_id: str, after: EventLog | None) -> EventLog:
    """Read from after ``after`` (or the start) to the next terminal event."""
    last = after.frames[-1].id if after is not None and after.frames else None
    log = await collect(server.client, conversation_id, until=terminals(1), last_event_id=last)
    await server.idle()
    return log


def _notes(server: LiveServer) -> list[str]:
    return sorted(text for _, text in stored_notes(server.services.db))


def _every_call_has_one_tool_message(detail: dict[str, Any]) -> None:
    calls = [c["id"] for m in detail["messages"] for c in m["tool_calls"]]
    answered = [m["tool_call_id"] for m in detail["messages"] if m["role"] == "tool"]
    assert sorted(calls) == sorted(answered), (calls, answered)


def test_assert_openai_order_rejects_broken_histories() -> None:
    call = {"id": "c1", "name": "notes_add", "args": {}, "type": "tool_call"}
    good = [
        SystemMessage("s"),
        HumanMessage("h"),
        AIMessage("", tool_calls=[call]),
        ToolMessage("r", tool_call_id="c1"),
    ]
    assert_openai_order(good)
    bad: list[Callable[[], list[BaseMessage]]] = [
        lambda: good[:3],  # unanswered call
        lambda: [*good[:3], HumanMessage("x"), good[3]],  # answer not right after
        lambda: [*good[:3], ToolMessage("r", tool_call_id="c2")],  # wrong id
        lambda: [*good, ToolMessage("r", tool_call_id="c1")],  # stray tool message
    ]
    for make in bad:
        try:
            assert_openai_order(make())
        except AssertionError:
            continue
        raise AssertionError(f"accepted {make()!r}")


async def test_engine_history_keeps_openai_order_and_shows_the_executed_args_after_an_edit(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message(
                "Two notes.", ("notes_add", {"text": "a"}), ("notes_add", {"text": "b"})
            ),
            "Added both.",
            scripted_message("Listing.", ("notes_list", {})),
            "Here they are.",
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add a and b")
        log = await _read(server, conversation_id, None)
        assert log.types[-1] == "run.paused", log.types
        first, second = (e["tool_call"] for e in log.of("tool_call.interrupted"))

        edited = await server.decide(first["id"], type="edit", args={"text": "a, edited"})
        assert edited.status_code == 200, edited.text
        assert (await server.decide(second["id"], type="approve")).status_code == 200
        log = await _read(server, conversation_id, log)
        assert log.types[-1] == "run.completed", log.types

        await server.say(conversation_id, "list my notes")
        log = await _read(server, conversation_id, log)
        assert log.types[-1] == "run.completed", log.types

        assert model.calls_made == 4
        assert_every_model_input_valid(model)
        # The resume's model call sees what ran, not what was proposed.
        ai = next(m for m in model.received[1] if isinstance(m, AIMessage) and m.tool_calls)
        assert [(c["id"], c["args"]) for c in ai.tool_calls] == [
            (first["id"], {"text": "a, edited"}),
            (second["id"], {"text": "b"}),
        ]
        # ...and keeps seeing it in later turns.
        later = [m for m in model.received[3] if isinstance(m, AIMessage) and m.tool_calls]
        assert later[0].tool_calls[0]["args"] == {"text": "a, edited"}
        assert _notes(server) == ["a, edited", "b"]
        _every_call_has_one_tool_message(await _detail(server, conversation_id))


async def test_engine_respond_runs_nothing_and_the_persons_text_is_the_tool_message(
    engine_settings: Settings,
) -> None:
    answer = "I wrote it on paper already, thanks."
    model = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "milk"})), "Noted."]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add a note milk")
        log = await _read(server, conversation_id, None)
        (interrupted,) = log.of("tool_call.interrupted")
        call_id = interrupted["tool_call"]["id"]

        response = await server.decide(call_id, type="respond", message=answer)
        assert response.status_code == 200, response.text
        assert response.json()["decision"]["type"] == "respond"
        log = await _read(server, conversation_id, log)
        assert log.types[-1] == "run.completed", log.types

        assert log.of("tool_call.running") == []
        assert _notes(server) == []
        (completed,) = log.of("tool_call.completed")
        assert completed["tool_call"]["id"] == call_id
        assert completed["tool_call"]["executed_args"] is None
        assert completed["tool_call"]["decision"]["message"] == answer
        # notes.add asks nothing: the model is told it did not run, with the person's words.
        told = f"Not run: the person answered instead of running “Add a note”: {answer}"
        assert completed["tool_call"]["result_text"] == told
        assert completed["message"]["content"] == ""  # the same text is not sent twice
        assert completed["message"]["tool_status"] == "success"

        assert_every_model_input_valid(model)
        (seen,) = [m for m in model.received[1] if isinstance(m, ToolMessage)]
        assert seen.tool_call_id == call_id and seen.text == told and seen.status == "success"


async def test_engine_step_limit_fails_the_run_and_leaves_a_valid_history(
    make_settings: Callable[..., Settings],
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message("Listing.", ("notes_list", {})),
            scripted_message("Again.", ("notes_list", {})),
            "Fine, I stop.",  # only reached by the next turn
        ]
    )
    async with live_server(make_settings(max_steps_per_turn=2), model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "keep listing")
        log = await _read(server, conversation_id, None)

        assert log.types[-1] == "run.failed", log.types
        (failed,) = log.of("run.failed")
        assert failed["error"]["code"] == "step_limit"
        assert model.calls_made == 2
        completed = [e["tool_call"] for e in log.of("tool_call.completed")]
        assert [c["status"] for c in completed] == ["succeeded", "succeeded"]
        detail = await _detail(server, conversation_id)
        assert detail["status"] == "idle"
        _every_call_has_one_tool_message(detail)

        # The history is still valid: the next turn works and the model gets proper order.
        await server.say(conversation_id, "stop now")
        log = await _read(server, conversation_id, log)
        assert log.types[-1] == "run.completed", log.types
        assert model.calls_made == 3
        assert_every_model_input_valid(model)
        assert isinstance(model.received[2][-1], HumanMessage)


async def test_engine_a_new_message_cancels_pending_calls_with_a_reason_then_the_turn_runs(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message(
                "Two things.", ("notes_add", {"text": "x"}), ("notes_add", {"text": "y"})
            ),
            "Sure, something else then.",
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add x and y")
        log = await _read(server, conversation_id, None)
        assert log.types[-1] == "run.paused", log.types
        pending = [e["tool_call"]["id"] for e in log.of("tool_call.interrupted")]
        assert len(pending) == 2

        accepted = await server.say(conversation_id, "never mind, something else")
        log = await _read(server, conversation_id, log)
        cancelled = log.of("tool_call.completed")
        assert [e["tool_call"]["id"] for e in cancelled] == pending
        for event in cancelled:
            assert event["tool_call"]["status"] == "cancelled"
            assert event["tool_call"]["error"] == {
                "code": "cancelled",
                "message": "You sent a new message.",
            }
            assert event["message"]["content"] == f"Cancelled: {NEW_MESSAGE_REASON.model}."
            assert event["message"]["tool_status"] == "error"
        # The cancellations come before the new user message; then the new turn proceeds.
        types = log.types
        assert types.index("tool_call.completed") < types.index("message.completed")
        assert log.of("message.completed")[0]["message"]["id"] == accepted["message_id"]
        assert log.types[-1] == "run.completed", log.types
        assert log.of("message.completed")[-1]["message"]["content"] == "Sure, something else then."

        assert _notes(server) == []
        assert (
            await server.client.get(f"/api/conversations/{conversation_id}/pending")
        ).json() == []
        late = await server.decide(pending[0], type="approve")
        assert late.status_code == 409, late.text
        details = late.json()["error"]["details"]
        assert (details["status"], details["decision"]) == ("cancelled", None)
        assert details["tool_call"]["status"] == "cancelled"

        assert_every_model_input_valid(model)
        history = model.received[1]
        assert isinstance(history[-1], HumanMessage)
        assert [m.tool_call_id for m in history if isinstance(m, ToolMessage)] == pending
        _every_call_has_one_tool_message(await _detail(server, conversation_id))
