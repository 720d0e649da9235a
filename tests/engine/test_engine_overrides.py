"""Employee tool overrides, in each direction, applied by the engine.

An admin's ``tool_overrides`` (``PATCH /api/employees/{slug}``) change a tool's permission for
that employee: ``DENY`` takes the tool away (not offered; a call fails ``permission_denied``
and nothing runs), ``ALLOW`` skips the card of an ``ASK`` tool, ``ASK`` puts a card in front of
an ``ALLOW`` tool. A ``DENY`` set while a call waits for approval wins over the approval.
"""

from __future__ import annotations

from typing import Any

import pytest

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from support.api_errors import error_of
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import EventLog, collect, terminals


async def _override(server: LiveServer, slug: str, overrides: dict[str, str]) -> None:
    response = await server.client.patch(
        f"/api/employees/{slug}", json={"tool_overrides": overrides}
    )
    assert response.status_code == 200, response.text
    assert response.json()["tool_overrides"] == overrides


def _notes(server: LiveServer) -> list[str]:
    return [text for _, text in stored_notes(server.services.db)]


def _only_call(log: EventLog, type_: str) -> dict[str, Any]:
    events = log.of(type_)
    assert len(events) == 1, (type_, log.types)
    return dict(events[0]["tool_call"])


async def test_deny_takes_the_tool_away_and_a_call_to_it_runs_nothing(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "buy milk"})), "Sorry."]
    )
    async with live_server(engine_settings, model=model) as server:
        await _override(server, "assistant", {"notes.add": "DENY"})
        conversation_id = await server.new_conversation()
        log = await server.turn(conversation_id, "add a note buy milk")

        assert log.types[-1] == "run.completed", log.types
        assert log.of("tool_call.interrupted") == [] and log.of("tool_call.running") == []
        call = _only_call(log, "tool_call.completed")
        assert call["status"] == "failed"
        assert call["error"]["code"] == "permission_denied"
        assert call["executed_args"] is None
        message = log.of("tool_call.completed")[0]["message"]
        assert message["content"].startswith("Error [permission_denied]: ")
        assert _notes(server) == []

        offered = set(model.bound_tool_names_seen[0])
        assert "notes_add" not in offered
        assert {"notes_list", "notes_delete", "suggestions"} <= offered
        assert model.calls_made == 2  # the model saw the refusal and answered
        assert "notes_add" not in set(model.bound_tool_names_seen[1])


async def test_allow_on_an_ask_tool_runs_it_without_a_card(engine_settings: Settings) -> None:
    model = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "buy milk"})), "Saved."]
    )
    async with live_server(engine_settings, model=model) as server:
        assert server.services.registry.get("notes.add").permission == "ASK"  # type: ignore[union-attr]
        await _override(server, "assistant", {"notes.add": "ALLOW"})
        conversation_id = await server.new_conversation()
        log = await server.turn(conversation_id, "add a note buy milk")

        assert log.types[-1] == "run.completed", log.types
        assert log.of("tool_call.interrupted") == [] and log.of("run.paused") == []
        created = _only_call(log, "tool_call.created")
        assert created["name"] == "notes.add" and created["permission"] == "ALLOW"
        call = _only_call(log, "tool_call.completed")
        assert call["status"] == "succeeded" and call["decision"] is None
        assert call["executed_args"] == {"text": "buy milk"}
        assert _notes(server) == ["buy milk"]
        assert log.of("message.completed")[-1]["message"]["content"] == "Saved."


async def test_ask_on_an_allow_tool_pauses_for_approval(engine_settings: Settings) -> None:
    model = ScriptedChatModel(
        responses=[scripted_message("Listing.", ("notes_list", {})), "You have no notes."]
    )
    async with live_server(engine_settings, model=model) as server:
        assert server.services.registry.get("notes.list").permission == "ALLOW"  # type: ignore[union-attr]
        await _override(server, "assistant", {"notes.list": "ASK"})
        conversation_id = await server.new_conversation()
        log = await server.turn(conversation_id, "what notes do I have?")

        assert log.types[-1] == "run.paused", log.types
        call = _only_call(log, "tool_call.interrupted")
        assert call["name"] == "notes.list" and call["permission"] == "ASK"
        assert log.of("tool_call.running") == []
        assert log.of("run.paused")[0]["pending"] == [call["id"]]
        assert model.calls_made == 1

        response = await server.decide(call["id"], type="approve")
        assert response.status_code == 200, response.text
        log = await collect(server.client, conversation_id, until=terminals(2))
        assert log.types[-1] == "run.completed", log.types
        await server.idle()
        done = [e["tool_call"] for e in log.of("tool_call.completed")]
        assert [(c["id"], c["status"]) for c in done] == [(call["id"], "succeeded")]
        assert model.calls_made == 2


async def test_a_deny_set_while_a_call_waits_wins_over_the_approval(
    engine_settings: Settings,
) -> None:
    async with live_server(engine_settings) as server:  # the offline model
        conversation_id = await server.new_conversation()
        log = await server.turn(conversation_id, "add a note buy milk")
        assert log.types[-1] == "run.paused", log.types
        call = _only_call(log, "tool_call.interrupted")
        assert call["name"] == "notes.add"

        await _override(server, "assistant", {"notes.add": "DENY"})
        response = await server.decide(call["id"], type="approve")
        assert response.status_code == 200, response.text
        log = await collect(server.client, conversation_id, until=terminals(2))
        assert log.types[-1] == "run.completed", log.types
        await server.idle()

        assert _notes(server) == []
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        stored = next(
            c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call["id"]
        )
        assert stored["status"] == "failed"
        assert stored["error"]["code"] == "permission_denied"
        assert stored["decision"]["type"] == "approve"
        [tool_message] = [m for m in detail["messages"] if m.get("tool_call_id") == call["id"]]
        assert tool_message["role"] == "tool" and tool_message["tool_status"] == "error"
        assert tool_message["content"].startswith("Error [permission_denied]: ")
        assert (
            await server.client.get(f"/api/conversations/{conversation_id}/pending")
        ).json() == []


async def test_deny_on_load_skill_hides_the_loadable_skills(engine_settings: Settings) -> None:
    model = ScriptedChatModel(
        responses=[scripted_message("Loading.", ("load_skill", {"name": "ask"})), "I cannot."]
    )
    async with live_server(engine_settings, model=model) as server:
        await _override(server, "assistant", {"load_skill": "DENY"})
        conversation_id = await server.new_conversation()
        log = await server.turn(conversation_id, "ask me for my details")

        assert log.types[-1] == "run.completed", log.types
        call = _only_call(log, "tool_call.completed")
        assert call["error"]["code"] == "permission_denied"
        assert "load_skill" not in model.bound_tool_names_seen[0]
        prompt = model.received[0][0].text
        assert "Skills you can load" not in prompt
        assert "ask_form" not in model.bound_tool_names_seen[1]


async def test_a_custom_employee_gets_only_its_skills_and_overrides(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message(
                "Both.", ("notes_add", {"text": "flour"}), ("notes_delete", {"id": 1})
            ),
            "Added flour; I may not delete.",
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        response = await server.client.post(
            "/api/employees",
            json={
                "slug": "baker",
                "name": "Bea",
                "system_prompt": "You are Bea the baker.",
                "pinned_skills": ["notes"],
                "tool_overrides": {"notes.add": "ALLOW", "notes.delete": "DENY"},
            },
        )
        assert response.status_code == 201, response.text
        started = await server.client.post("/api/conversations", json={"employee": "baker"})
        assert started.status_code == 201, started.text
        log = await server.turn(started.json()["id"], "note flour")

        assert log.types[-1] == "run.completed", log.types
        assert model.bound_tool_names_seen[0] == ("notes_add", "notes_list")
        prompt = model.received[0][0].text
        assert prompt.startswith("You are Bea the baker.")
        assert "## Skill: notes" in prompt and "Skills you can load" not in prompt
        outcomes = [
            (e["tool_call"]["status"], (e["tool_call"]["error"] or {}).get("code"))
            for e in log.of("tool_call.completed")
        ]
        assert sorted(outcomes, key=str) == sorted(
            [("succeeded", None), ("failed", "permission_denied")], key=str
        )
        assert log.of("tool_call.interrupted") == []
        assert _notes(server) == ["flour"]


async def test_allow_on_a_question_tool_still_asks_the_person(
    engine_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The API refuses ``ALLOW`` for a question tool (422 ``question_always_asks``); one stored
    before that check still asks."""
    question = {"summary": "the booking for Friday"}
    model = ScriptedChatModel(responses=[scripted_message("", ("ask_confirm", question)), "Ok."])
    async with live_server(engine_settings, model=model) as server:
        refused = await server.client.patch(
            "/api/employees/scout", json={"tool_overrides": {"ask.confirm": "ALLOW"}}
        )
        error_of(refused, 422, "question_always_asks")
        monkeypatch.setattr(server.services.employees, "_question_tools", dict)
        await _override(server, "scout", {"ask.confirm": "ALLOW"})
        response = await server.client.post("/api/conversations", json={"employee": "scout"})
        conversation_id = response.json()["id"]
        log = await server.turn(conversation_id, "confirm the booking")

        assert log.types[-1] == "run.paused", log.types
        call = _only_call(log, "tool_call.interrupted")
        assert (call["name"], call["permission"]) == ("ask.confirm", "ASK")
