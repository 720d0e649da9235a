"""Engine: a tool's ``check`` and ``confirmation`` run before any card is shown.

* the confirmation is on ``tool_call.interrupted`` and on the call after a reload;
* a failing check fails the call with an error tool message the model sees: no card, no
  ``tool_call.interrupted``;
* a check or confirmation that raises something else fails the call with ``internal``;
* hostile text in a confirmation is stored and returned as plain data;
* a check that fails at run time (after approval) ends the call "not run".
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.tools import Confirmation, Permission, ToolContext, tool
from support.live import LiveServer, live_server
from support.notes import insert_note, remove_note, stored_notes
from support.sse import EventLog, collect, terminals

HOSTILE = '<img src=x onerror="alert(1)"> <script>alert(2)</script> [x](javascript:alert(3))'


async def _run(server: LiveServer, conversation_id: str, content: str, runs: int = 1) -> EventLog:
    await server.say(conversation_id, content)
    log = await collect(server.client, conversation_id, until=terminals(runs))
    await server.idle()
    return log


async def _detail_call(server: LiveServer, conversation_id: str) -> dict[str, Any]:
    response = await server.client.get(f"/api/conversations/{conversation_id}")
    assert response.status_code == 200, response.text
    calls = [c for m in response.json()["messages"] for c in m["tool_calls"]]
    assert len(calls) == 1, calls
    return dict(calls[0])


def _add_note(server: LiveServer, owner: str, text: str) -> int:
    return insert_note(server.services.db, owner, text)


async def test_engine_notes_delete_card_names_the_note_and_survives_a_reload(
    engine_settings: Settings,
) -> None:
    async with live_server(engine_settings, model=ScriptedChatModel(responses=[])) as server:
        me = (await server.client.get("/api/me")).json()["id"]
        note_id = _add_note(server, me, "buy milk")
        server.services.engine.model = ScriptedChatModel(
            responses=[scripted_message("Deleting.", ("notes_delete", {"id": note_id}))]
        )
        conversation_id = await server.new_conversation()
        log = await _run(server, conversation_id, "forget the milk")

        assert log.types[-1] == "run.paused", log.types
        (interrupted,) = log.of("tool_call.interrupted")
        call = interrupted["tool_call"]
        assert call["confirmation"] == {
            "title": "Delete a note",
            "summary": f"Delete note #{note_id}: “buy milk”. It can be undone afterwards.",
            "action_label": "Delete",
            "detail": None,
            "previous": None,
        }
        assert (call["write"], call["destructive"], call["execution"], call["modal"]) == (
            True,
            True,
            "server",
            False,
        )
        assert (await _detail_call(server, conversation_id))["confirmation"] == call["confirmation"]
        pending = (await server.client.get(f"/api/conversations/{conversation_id}/pending")).json()
        assert pending[0]["confirmation"] == call["confirmation"]


async def test_engine_a_failing_check_sends_an_error_to_the_model_and_shows_no_card(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message("Deleting.", ("notes_delete", {"id": 999})),
            "That note does not exist.",
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        log = await _run(server, conversation_id, "delete note 999")

        assert log.of("tool_call.interrupted") == []
        assert log.types[-1] == "run.completed", log.types
        (completed,) = log.of("tool_call.completed")
        call = completed["tool_call"]
        assert call["status"] == "failed"
        assert call["error"] == {"code": "not_found", "message": "There is no note #999."}
        assert (call["executed_args"], call["started_at"], call["confirmation"]) == (None,) * 3
        assert completed["message"]["content"].startswith("Error [not_found]: There is no note")
        (seen,) = [m for m in model.received[1] if isinstance(m, ToolMessage)]
        assert seen.status == "error" and "Call notes.list" in str(seen.content)


async def test_engine_another_persons_note_reads_as_missing(engine_settings: Settings) -> None:
    async with live_server(engine_settings, model=ScriptedChatModel(responses=[])) as server:
        note_id = _add_note(server, "user_someone_else", "their secret")
        server.services.engine.model = ScriptedChatModel(
            responses=[scripted_message("", ("notes_delete", {"id": note_id})), "No."]
        )
        conversation_id = await server.new_conversation()
        log = await _run(server, conversation_id, "delete it")

        assert log.of("tool_call.interrupted") == []
        (completed,) = log.of("tool_call.completed")
        assert completed["tool_call"]["error"]["code"] == "not_found"
        assert "their secret" not in str(log.frames)


async def test_engine_a_check_or_confirmation_that_raises_fails_with_internal_and_no_card(
    engine_settings: Settings,
) -> None:
    def broken_check(args: dict[str, Any], ctx: ToolContext) -> None:
        raise RuntimeError("secret internals")

    async def broken_confirmation(args: dict[str, Any], ctx: ToolContext) -> Confirmation:
        raise KeyError("secret internals")

    def not_a_confirmation(args: dict[str, Any], ctx: ToolContext) -> Any:
        return {"title": "a dict is not a Confirmation"}

    made: list[Any] = []
    for name, check, confirmation in (
        ("test.bad_check", broken_check, None),
        ("test.bad_confirmation", None, broken_confirmation),
        ("test.wrong_confirmation", None, not_a_confirmation),
    ):

        @tool(
            name=name,
            title="Broken",
            description="Broken hooks.",
            permission=Permission.ASK,
            check=check,
            confirmation=confirmation,
        )
        def handler(args: dict[str, Any], ctx: ToolContext) -> str:
            raise AssertionError("never runs")

        made.append(handler)

    model = ScriptedChatModel(
        responses=[
            scripted_message(
                "Trying.",
                ("test_bad_check", {}),
                ("test_bad_confirmation", {}),
                ("test_wrong_confirmation", {}),
            ),
            "Those tools are broken.",
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        server.services.registry.register_many(made)
        conversation_id = await server.new_conversation()
        log = await _run(server, conversation_id, "use the broken tools")

        assert log.of("tool_call.interrupted") == []
        assert log.types[-1] == "run.completed", log.types
        completed = [e["tool_call"] for e in log.of("tool_call.completed")]
        assert [c["status"] for c in completed] == ["failed"] * 3
        assert [c["error"]["code"] for c in completed] == ["internal"] * 3
        messages = [c["error"]["message"] for c in completed]
        # The person reads that the tool is broken, not which hook raised what (the log does).
        assert (
            messages
            == [
                "The tool “Broken” could not prepare this request, so it was not shown or run. "
                "This is a bug in the tool; the server log has the details."
            ]
            * 3
        )
        assert "RuntimeError" not in str(log.frames) and "KeyError" not in str(log.frames)
        assert "secret internals" not in str(log.frames)
        assert model.calls_made == 2


async def test_engine_hostile_text_in_a_confirmation_stays_plain_data(
    engine_settings: Settings,
) -> None:
    def hostile(args: dict[str, Any], ctx: ToolContext) -> Confirmation:
        return Confirmation(
            title=HOSTILE,
            summary=f"Say {args['text']}\u0000",
            action_label="Do <b>it</b>",
            detail=HOSTILE + "\n" * 3 + HOSTILE,
            previous="<!-- old -->",
        )

    @tool(
        name="test.hostile",
        title="Hostile",
        description="Hostile confirmation.",
        input_schema={"type": "object", "properties": {"text": {"type": "string"}}},
        permission=Permission.ASK,
        confirmation=hostile,
    )
    def handler(args: dict[str, Any], ctx: ToolContext) -> str:
        return "ok"

    model = ScriptedChatModel(
        responses=[scripted_message("", ("test_hostile", {"text": "</script><script>x()"}))]
    )
    async with live_server(engine_settings, model=model) as server:
        server.services.registry.register(handler)
        conversation_id = await server.new_conversation()
        log = await _run(server, conversation_id, "be hostile")

        (interrupted,) = log.of("tool_call.interrupted")
        confirmation = interrupted["tool_call"]["confirmation"]
        assert confirmation == {
            "title": HOSTILE,
            "summary": "Say </script><script>x()\ufffd",
            "action_label": "Do <b>it</b>",
            "detail": HOSTILE + "\n\n\n" + HOSTILE,
            "previous": "<!-- old -->",
        }
        assert (await _detail_call(server, conversation_id))["confirmation"] == confirmation


async def test_engine_a_check_failing_after_approval_ends_the_call_not_run(
    engine_settings: Settings,
) -> None:
    async with live_server(engine_settings, model=ScriptedChatModel(responses=[])) as server:
        me = (await server.client.get("/api/me")).json()["id"]
        note_id = _add_note(server, me, "buy milk")
        model = ScriptedChatModel(
            responses=[scripted_message("", ("notes_delete", {"id": note_id})), "It was gone."]
        )
        server.services.engine.model = model
        conversation_id = await server.new_conversation()
        log = await _run(server, conversation_id, "delete the milk note")
        call_id = log.of("tool_call.interrupted")[0]["tool_call"]["id"]
        remove_note(server.services.db, note_id)  # deleted meanwhile (another tab)

        decided = await server.decide(call_id, type="approve")
        assert decided.status_code == 200, decided.text
        assert decided.json()["decision"]["user_name"] == "local"
        log = await collect(server.client, conversation_id, until=terminals(2))
        await server.idle()

        assert "tool_call.running" not in log.types
        completed = log.of("tool_call.completed")[-1]["tool_call"]
        assert completed["status"] == "failed"
        assert completed["error"]["code"] == "not_found"
        assert (completed["executed_args"], completed["started_at"]) == (None, None)
        assert completed["decision"]["type"] == "approve"
        assert log.types[-1] == "run.completed", log.types
        assert stored_notes(server.services.db) == []


async def test_engine_notes_add_card_shows_the_text_and_a_slash_command_gets_it_too(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[scripted_message("", ("notes_add", {"text": "call Ada\nabout Friday"}))]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        log = await _run(server, conversation_id, "remember to call Ada")
        confirmation = log.of("tool_call.interrupted")[0]["tool_call"]["confirmation"]
        assert confirmation == {
            "title": "Add a note",
            "summary": "Add a note: “call Ada about Friday”",
            "action_label": "Add note",
            "detail": "call Ada\nabout Friday",
            "previous": None,
        }

        other = await server.new_conversation()
        log = await _run(server, other, "/notes buy milk")
        confirmation = log.of("tool_call.interrupted")[0]["tool_call"]["confirmation"]
        assert confirmation["summary"] == "Add a note: “buy milk”"
        assert confirmation["action_label"] == "Add note"


async def test_engine_a_card_sentence_shows_a_bidi_override_in_the_args_instead_of_obeying_it(
    engine_settings: Settings,
) -> None:
    """An override left open in a quoted value would reverse the rest of the card's sentence
    (``Add a note: “”live``); the card names it instead, and the call keeps the args as sent."""
    text = "\u202eevil \u2067x\u200f \U0001f468\u200d\U0001f469"
    model = ScriptedChatModel(responses=[scripted_message("", ("notes_add", {"text": text}))])
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        log = await _run(server, conversation_id, "remember this")
        call = log.of("tool_call.interrupted")[0]["tool_call"]
        expected = "Add a note: “[U+202E]evil [U+2067]x\u200f \U0001f468\u200d\U0001f469”"
        assert call["confirmation"]["summary"] == expected
        assert call["proposed_args"] == {"text": text}
        assert (await _detail_call(server, conversation_id))["confirmation"] == call["confirmation"]
        pending = (await server.client.get(f"/api/conversations/{conversation_id}/pending")).json()
        assert pending[0]["confirmation"]["summary"] == expected
