"""Progressive disclosure: a skill's tools and instructions reach the model once it is active.

Ada (``assistant``) pins ``notes`` and ``suggestions`` and may load any other skill (``"*"``),
so ``ask`` starts out loadable, not active: its tools are not offered, a call to one fails
with ``not_found`` (no card), and ``load_skill {"name": "ask"}`` (ALLOW) activates it for the
rest of the conversation. Scout may not load ``notes`` at all.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage, ToolMessage

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import Conversation
from support.api_errors import error_of
from support.live import LiveServer, live_server
from support.sse import EventLog, collect, terminals

ASK_TOOLS = {"ask_choice", "ask_confirm", "ask_form"}
FORM_ARGS = {
    "title": "Your details",
    "fields": {
        "type": "object",
        "properties": {"name": {"type": "string", "title": "Name"}},
        "required": ["name"],
    },
}
ASK_INSTRUCTIONS = "Use these tools when you need an answer from the person"  # skills/ask/SKILL.md


async def _new_conversation(server: LiveServer, employee: str = "assistant") -> str:
    response = await server.client.post("/api/conversations", json={"employee": employee})
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def _loaded_skills(server: LiveServer, conversation_id: str) -> list[str]:
    with server.services.db.session() as session:
        conversation = session.get(Conversation, conversation_id)
        assert conversation is not None
        return list(conversation.loaded_skills)


def _system_prompt(messages: list[BaseMessage]) -> str:
    assert isinstance(messages[0], SystemMessage), messages[0]
    return messages[0].text


def _completed(log: EventLog) -> dict[str, dict[str, Any]]:
    return {e["tool_call"]["name"]: e for e in log.of("tool_call.completed")}


async def test_an_ask_tool_before_load_skill_is_not_offered_and_fails_not_found(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[scripted_message("Let me ask.", ("ask_form", FORM_ARGS)), "I must load it."]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await _new_conversation(server)
        log = await server.turn(conversation_id, "ask me for my details")

        assert log.types[-1] == "run.completed", log.types
        assert log.of("tool_call.interrupted") == [] and log.of("tool_call.running") == []
        [completed] = log.of("tool_call.completed")
        assert completed["tool_call"]["status"] == "failed"
        assert completed["tool_call"]["error"]["code"] == "not_found"
        assert completed["tool_call"]["executed_args"] is None
        content = completed["message"]["content"]
        assert content.startswith("Error [not_found]: ")
        assert "load_skill" in content and "'ask'" in content

        # What the model was offered and told before the skill was loaded.
        first_bound = set(model.bound_tool_names_seen[0])
        assert not first_bound & ASK_TOOLS
        assert {"load_skill", "notes_add", "notes_list", "suggestions"} <= first_bound
        prompt = _system_prompt(model.received[0])
        assert "Skills you can load" in prompt and "- ask: " in prompt
        assert ASK_INSTRUCTIONS not in prompt and "## Skill: ask" not in prompt
        assert "## Skill: notes" in prompt  # pinned skills are active from the start

        # The model saw the error and answered; nothing got loaded.
        assert model.calls_made == 2
        [tool_message] = [m for m in model.received[1] if isinstance(m, ToolMessage)]
        assert tool_message.status == "error" and tool_message.text == content
        assert not set(model.bound_tool_names_seen[1]) & ASK_TOOLS
        assert _loaded_skills(server, conversation_id) == []


async def test_load_skill_runs_at_once_and_the_skill_stays_active(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message("Loading.", ("load_skill", {"name": "ask"})),
            scripted_message("Let me ask.", ("ask_form", FORM_ARGS)),
            "Thanks, Grace.",
            "Still here.",
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await _new_conversation(server)
        log = await server.turn(conversation_id, "ask me for my details")

        assert log.types[-1] == "run.paused", log.types
        created = [e["tool_call"] for e in log.of("tool_call.created")]
        assert [c["name"] for c in created] == ["load_skill", "ask.form"]
        assert created[0]["permission"] == "ALLOW"
        load = _completed(log)["load_skill"]["tool_call"]
        assert load["status"] == "succeeded"
        assert load["result_data"] == {
            "skill": "ask",
            "tools": sorted(["ask.choice", "ask.confirm", "ask.form"]),
            "unavailable": {},
        }
        interrupted = [e["tool_call"] for e in log.of("tool_call.interrupted")]
        assert [c["name"] for c in interrupted] == ["ask.form"]  # load_skill never asked
        assert _loaded_skills(server, conversation_id) == ["ask"]

        # The next model call was offered the ask tools and got the ask instructions.
        assert model.calls_made == 2
        assert not set(model.bound_tool_names_seen[0]) & ASK_TOOLS
        second_bound = set(model.bound_tool_names_seen[1])
        assert ASK_TOOLS <= second_bound
        assert "load_skill" in second_bound  # browser and documents can still be loaded
        prompt = _system_prompt(model.received[1])
        assert "## Skill: ask" in prompt and ASK_INSTRUCTIONS in prompt
        assert "- ask: " not in prompt.split("Skills you can load", 1)[-1]

        response = await server.decide(
            interrupted[0]["id"], type="respond", message='{"name": "Grace"}'
        )
        assert response.status_code == 200, response.text
        log = await collect(server.client, conversation_id, until=terminals(2))
        assert log.types[-1] == "run.completed", log.types
        await server.idle()

        # Stored on the conversation: a later message is offered the ask tools directly.
        log = await server.turn(conversation_id, "anything else?")
        assert log.types[-1] == "run.completed", log.types
        assert model.calls_made == 4
        assert ASK_TOOLS <= set(model.bound_tool_names_seen[3])
        assert ASK_INSTRUCTIONS in _system_prompt(model.received[3])
        assert _loaded_skills(server, conversation_id) == ["ask"]


async def test_load_skill_of_a_skill_the_employee_may_not_load_is_not_found(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message(
                "Loading.",
                ("load_skill", {"name": "notes"}),
                ("load_skill", {"name": "astrology"}),
                ("notes_add", {"text": "sneaky"}),
            ),
            "I cannot.",
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await _new_conversation(server, "scout")
        log = await server.turn(conversation_id, "take a note")

        assert log.types[-1] == "run.completed", log.types
        assert log.of("tool_call.interrupted") == [] and log.of("tool_call.running") == []
        outcomes = [
            (e["tool_call"]["status"], e["tool_call"]["error"]["code"])
            for e in log.of("tool_call.completed")
        ]
        assert outcomes == [
            ("failed", "not_found"),  # load_skill notes: not available to Scout
            ("failed", "not_found"),  # load_skill astrology: no such skill
            ("failed", "permission_denied"),  # notes_add: Scout denies the notes tools
        ]
        messages = [e["message"]["content"] for e in log.of("tool_call.completed")]
        assert "'notes'" in messages[0] and "'astrology'" in messages[1]
        assert _loaded_skills(server, conversation_id) == []

        bound = set(model.bound_tool_names_seen[0])
        assert ASK_TOOLS <= bound  # pinned
        assert "load_skill" in bound  # suggestions is still loadable
        assert not any(name.startswith("notes_") for name in bound)
        prompt = _system_prompt(model.received[0])
        assert "- suggestions: " in prompt and "- notes: " not in prompt
        assert model.calls_made == 2


async def test_offline_model_loads_ask_then_pauses_on_the_form_and_checks_the_answer(
    engine_settings: Settings,
) -> None:
    async with live_server(engine_settings) as server:
        conversation_id = await _new_conversation(server)
        log = await server.turn(conversation_id, "ask me for my details")

        assert log.types[-1] == "run.paused", log.types
        assert [e["tool_call"]["name"] for e in log.of("tool_call.created")] == [
            "load_skill",
            "ask.form",
        ]
        assert _completed(log)["load_skill"]["tool_call"]["status"] == "succeeded"
        [form] = [e["tool_call"] for e in log.of("tool_call.interrupted")]
        assert form["name"] == "ask.form" and form["card"] == "form"
        assert set(form["proposed_args"]["fields"]["required"]) == {"name", "email"}
        assert _loaded_skills(server, conversation_id) == ["ask"]
        pending_url = f"/api/conversations/{conversation_id}/pending"

        # An answer missing a required field is refused; the pause stays.
        for answer, path in (
            ('{"name": "Grace Hopper"}', ["email"]),
            ('{"name": "Grace Hopper", "email": "g@example.com", "age": "old"}', ["age"]),
            ('{"name": "Grace Hopper", "email": "g@example.com", "plan": "gold"}', ["plan"]),
            ("not json", []),
        ):
            response = await server.decide(form["id"], type="respond", message=answer)
            assert response.status_code == 422, response.text
            error = response.json()["error"]
            assert error["code"] == "invalid_args"
            assert error["details"]["errors"], error
            assert error["details"]["errors"][0]["path"] == path, error
        missing = (
            await server.decide(form["id"], type="respond", message='{"name": "Grace Hopper"}')
        ).json()["error"]["details"]["errors"]
        assert [(e["rule"], e["path"], e["message"]) for e in missing] == [
            ("required", ["email"], "Is required.")
        ]
        # The Email field is an email address (was a plain string: "nobody" was accepted),
        # checked by the server too, not only the form's input.
        assert form["proposed_args"]["fields"]["properties"]["email"]["format"] == "email"
        for address in ("nobody", "nobody@", "grace@localhost"):
            response = await server.decide(
                form["id"],
                type="respond",
                message=json.dumps({"name": "Grace Hopper", "email": address}),
            )
            errors = error_of(response, 422, "invalid_args")["details"]["errors"]
            assert [(e["rule"], e["path"]) for e in errors] == [("format", ["email"])], address
            assert errors[0]["message"] == "Must be a valid email address.", errors
        assert [c["id"] for c in (await server.client.get(pending_url)).json()] == [form["id"]]

        answer = '{"name": "Grace Hopper", "email": "grace@example.com", "plan": "pro"}'
        response = await server.decide(form["id"], type="respond", message=answer)
        assert response.status_code == 200, response.text
        log = await collect(server.client, conversation_id, until=terminals(2))
        assert log.types[-1] == "run.completed", log.types
        await server.idle()
        reply = log.of("message.completed")[-1]["message"]
        assert reply["role"] == "assistant"
        assert "Grace Hopper" in reply["content"]
        assert (await server.client.get(pending_url)).json() == []
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        stored = next(
            c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == form["id"]
        )
        assert stored["status"] == "succeeded" and stored["result_text"] == answer


async def test_a_refused_call_to_a_known_tool_keeps_the_tools_name_and_title(
    engine_settings: Settings,
) -> None:
    """A call to a registered tool that is not offered (skill not loaded, or denied) is
    stored and shown under the tool's own name (``ask.form``), with its title and card, like
    any other call of that tool; only names the registry does not know stay as sent."""
    model = ScriptedChatModel(
        responses=[
            scripted_message("Trying.", ("ask_form", FORM_ARGS), ("notes_frobnicate", {})),
            "Done.",
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await _new_conversation(server)
        log = await server.turn(conversation_id, "ask me for my details")
        assert log.types[-1] == "run.completed", log.types
        calls = [e["tool_call"] for e in log.of("tool_call.completed")]
        assert [c["error"]["code"] for c in calls] == ["not_found", "not_found"]
        assert calls[1]["name"] == "notes_frobnicate"
        assert (calls[0]["name"], calls[0]["title"], calls[0]["card"]) == (
            "ask.form",
            "Ask to fill in a form",
            "form",
        )


async def test_an_edited_load_skill_call_cannot_load_a_skill_the_employee_may_not_load(
    engine_settings: Settings,
) -> None:
    """With ``load_skill`` on ASK, the person may edit the call's args; the employee's rules
    still hold when it runs: Scout may not load ``notes``, so the call fails ``not_found``,
    nothing is loaded and the model gets no notes instructions."""
    model = ScriptedChatModel(
        responses=[scripted_message("Loading.", ("load_skill", {"name": "suggestions"})), "Ok."]
    )
    async with live_server(engine_settings, model=model) as server:
        overrides = {
            "notes.add": "DENY",
            "notes.delete": "DENY",
            "notes.list": "DENY",
            "load_skill": "ASK",
        }
        response = await server.client.patch(
            "/api/employees/scout", json={"tool_overrides": overrides}
        )
        assert response.status_code == 200, response.text
        conversation_id = await _new_conversation(server, "scout")
        log = await server.turn(conversation_id, "load something")
        assert log.types[-1] == "run.paused", log.types
        [call] = [e["tool_call"] for e in log.of("tool_call.interrupted")]

        response = await server.decide(call["id"], type="edit", args={"name": "notes"})
        assert response.status_code == 200, response.text
        log = await collect(server.client, conversation_id, until=terminals(2))
        await server.idle()
        assert log.types[-1] == "run.completed", log.types

        [done] = [e for e in log.of("tool_call.completed") if e["tool_call"]["id"] == call["id"]]
        assert done["tool_call"]["status"] == "failed", done["message"]["content"][:200]
        assert done["tool_call"]["error"]["code"] == "not_found"
        assert "# Notes" not in done["message"]["content"]
        assert _loaded_skills(server, conversation_id) == []
