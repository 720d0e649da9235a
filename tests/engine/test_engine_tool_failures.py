"""Engine: calls that fail — malformed or invalid arguments, unknown tools, a handler that
raises, a tool that times out.

None of them shows a card (no ``tool_call.interrupted``) or runs twice; each call ends
``failed`` with its error code and one error tool message (``Error [<code>]: ...``), and the
run goes on to the model's next reply, which sees those tool messages.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.tools import Permission, ToolContext, tool
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import EventLog, collect, terminals


async def _detail(server: LiveServer, conversation_id: str) -> dict[str, Any]:
    response = await server.client.get(f"/api/conversations/{conversation_id}")
    assert response.status_code == 200, response.text
    return dict(response.json())


async def _run_to_end(server: LiveServer, conversation_id: str, content: str) -> EventLog:
    await server.say(conversation_id, content)
    log = await collect(server.client, conversation_id, until=terminals(1))
    await server.idle()
    return log


def _notes(server: LiveServer) -> list[str]:
    return [text for _, text in stored_notes(server.services.db)]


def _tool_messages(history: list[Any]) -> list[ToolMessage]:
    return [m for m in history if isinstance(m, ToolMessage)]


async def test_engine_malformed_args_and_unknown_tools_fail_without_a_card_and_the_run_goes_on(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message(
                "Trying.",
                ("notes_add", {"text": 5}),  # schema failure: text must be a string
                ("notes_frobnicate", {"x": 1}),  # no such tool
                ("notes_add", "{broken"),  # not JSON
                ("notes_add", "[1,2]"),  # JSON, but not an object
            ),
            "Sorry, none of that worked.",
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        log = await _run_to_end(server, conversation_id, "do broken things")

        assert log.of("tool_call.interrupted") == []
        assert log.of("tool_call.running") == []
        assert _notes(server) == []
        created = [e["tool_call"] for e in log.of("tool_call.created")]
        assert [c["name"] for c in created] == [
            "notes.add",
            "notes_frobnicate",
            "notes.add",
            "notes.add",
        ]
        completed = {e["tool_call"]["id"]: e for e in log.of("tool_call.completed")}
        expected_codes = ["invalid_args", "not_found", "invalid_args", "invalid_args"]
        for call, code in zip(created, expected_codes, strict=True):
            event = completed[call["id"]]
            assert event["tool_call"]["status"] == "failed"
            assert event["tool_call"]["error"]["code"] == code
            assert event["tool_call"]["executed_args"] is None
            assert event["message"]["tool_call_id"] == call["id"]
            assert event["message"]["tool_status"] == "error"
            assert event["message"]["content"].startswith(f"Error [{code}]: ")
        assert completed[created[0]["id"]]["tool_call"]["result_data"]["errors"][0]["path"] == [
            "text"
        ]
        assert completed[created[2]["id"]]["tool_call"]["raw_args"] == "{broken"
        assert completed[created[3]["id"]]["tool_call"]["proposed_args"] == [1, 2]

        # The run went on to the model's next reply, which saw the four error tool messages.
        assert log.types[-1] == "run.completed", log.types
        assert model.calls_made == 2, "the model never saw the failed calls"
        errors = _tool_messages(model.received[1])
        assert [m.tool_call_id for m in errors] == [c["id"] for c in created]
        assert all(m.status == "error" for m in errors)
        answer = log.of("message.completed")[-1]["message"]
        assert answer["role"] == "assistant"
        assert answer["content"] == "Sorry, none of that worked."


async def test_engine_an_invalid_call_next_to_a_valid_one_fails_alone(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message("Listing.", ("notes_list", {}), ("notes_add", "{broken")),
            "Listed; the other call was broken.",
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        log = await _run_to_end(server, conversation_id, "list and break")
        assert log.types[-1] == "run.completed", log.types
        assert log.of("tool_call.interrupted") == []
        statuses = [
            (e["tool_call"]["name"], e["tool_call"]["status"])
            for e in log.of("tool_call.completed")
        ]
        assert sorted(statuses) == [("notes.add", "failed"), ("notes.list", "succeeded")]
        assert model.calls_made == 2
        assert [m.status for m in _tool_messages(model.received[1])] == ["success", "error"]


async def test_engine_a_handler_that_raises_fails_the_call_with_code_failed_and_the_run_goes_on(
    engine_settings: Settings,
) -> None:
    runs: list[dict[str, Any]] = []

    @tool(name="test.boom", title="Boom", description="Raises.", permission=Permission.ALLOW)
    def boom(args: dict[str, Any], ctx: ToolContext) -> str:
        runs.append(args)
        raise RuntimeError("kaboom")

    model = ScriptedChatModel(
        responses=[scripted_message("Trying.", ("test_boom", {})), "It failed, sorry."]
    )
    async with live_server(engine_settings, model=model) as server:
        server.services.registry.register(boom)
        conversation_id = await server.new_conversation()
        log = await _run_to_end(server, conversation_id, "explode")

        assert runs == [{}]
        assert log.of("tool_call.interrupted") == []
        (completed,) = log.of("tool_call.completed")
        assert completed["tool_call"]["status"] == "failed"
        assert completed["tool_call"]["error"]["code"] == "failed"
        message = completed["tool_call"]["error"]["message"]
        assert message.endswith("failed unexpectedly; the server log has the details.")
        assert "RuntimeError" not in message  # a class name is not words for the person
        assert "kaboom" not in message  # exception text stays in the log, not the card
        assert completed["message"]["content"].startswith("Error [failed]: ")
        assert completed["message"]["tool_status"] == "error"
        assert log.types[-1] == "run.completed", log.types
        assert log.of("message.completed")[-1]["message"]["content"] == "It failed, sorry."
        assert model.calls_made == 2
        (seen,) = _tool_messages(model.received[1])
        assert seen.tool_call_id == completed["tool_call"]["id"] and seen.status == "error"


async def test_engine_a_tool_that_times_out_fails_with_code_timeout_and_the_run_goes_on(
    engine_settings: Settings,
) -> None:
    started = asyncio.Event()
    never = asyncio.Event()

    @tool(
        name="test.slow",
        title="Slow",
        description="Never finishes.",
        permission=Permission.ALLOW,
        timeout_s=0.2,
    )
    async def slow(args: dict[str, Any], ctx: ToolContext) -> str:
        started.set()
        await never.wait()
        return "unreachable"

    model = ScriptedChatModel(
        responses=[scripted_message("Waiting.", ("test_slow", {})), "It timed out."]
    )
    async with live_server(engine_settings, model=model) as server:
        server.services.registry.register(slow)
        conversation_id = await server.new_conversation()
        log = await _run_to_end(server, conversation_id, "be slow")

        assert started.is_set()
        (completed,) = log.of("tool_call.completed")
        assert completed["tool_call"]["status"] == "failed"
        assert completed["tool_call"]["error"]["code"] == "timeout"
        assert completed["message"]["content"].startswith("Error [timeout]: ")
        assert log.types[-1] == "run.completed", log.types
        assert model.calls_made == 2
        detail = await _detail(server, conversation_id)
        assert [m["role"] for m in detail["messages"]] == ["user", "assistant", "tool", "assistant"]
        history = model.received[1]
        assert isinstance(history[-2], AIMessage) and isinstance(history[-1], ToolMessage)


async def test_engine_a_schema_failure_stores_the_field_in_words_for_the_card(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": ""})), "It was empty."]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        log = await _run_to_end(server, conversation_id, "add an empty note")
        assert log.types[-1] == "run.completed", log.types
        (completed,) = log.of("tool_call.completed")
        error = completed["tool_call"]["error"]
        assert error["code"] == "invalid_args"
        assert error["message"] == "Note must not be empty."  # the field's title, as on the card
        # The model still gets the code, the problem and the field hint.
        content = completed["message"]["content"]
        assert content.startswith("Error [invalid_args]: ")
        assert "text: Must not be empty." in content
        # Stored: a reload shows the same words.
        detail = await _detail(server, conversation_id)
        calls = [c for m in detail["messages"] for c in m.get("tool_calls") or []]
        assert [c["error"] for c in calls] == [error]


async def test_engine_error_texts_name_the_tool_by_its_title_for_the_person(
    engine_settings: Settings,
) -> None:
    never = asyncio.Event()

    @tool(
        name="test.weather_report",
        title="Fetch the weather report",
        description="Never finishes.",
        permission=Permission.ALLOW,
        timeout_s=0.2,
    )
    async def slow(args: dict[str, Any], ctx: ToolContext) -> str:
        await never.wait()
        return "unreachable"

    async with live_server(engine_settings) as server:  # the offline model
        server.services.registry.register(slow)
        conversation_id = await server.new_conversation()
        log = await _run_to_end(server, conversation_id, "use test_weather_report with {}")

        (completed,) = log.of("tool_call.completed")
        call = completed["tool_call"]
        # Machine fields keep the dotted name; the sentences name the title.
        assert call["name"] == "test.weather_report"
        assert call["error"]["code"] == "timeout"
        assert call["error"]["message"] == (
            "The tool “Fetch the weather report” did not finish within 0.2 seconds."
        )
        assert completed["message"]["content"].startswith("Error [timeout]: The tool “Fetch")
        said = log.of("message.completed")[-1]["message"]["content"]
        assert "“Fetch the weather report”" in said, said
        assert "test.weather_report" not in said and "test_weather_report" not in said, said
