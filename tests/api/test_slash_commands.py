"""Slash commands: ``/notes buy milk`` proposes the skill's bound tool call directly.

The server resolves the command against the skills available to the conversation's employee
and only checks the client's claim (``{"skill", "command"}``). A resolved command stores the
user message and an assistant message with one tool call, which goes through the permission
gate (ASK pauses, DENY refuses) before any model call; a command that cannot run stores
nothing (no message, no run, no event).
"""

from __future__ import annotations

from pathlib import Path
from textwrap import dedent

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from interlock.models import ScriptedChatModel
from interlock.settings import Settings
from support.api_errors import error_of
from support.live import live_server
from support.slash_commands import (
    NOTES_CLAIM,
    assert_nothing_stored,
    conversation_detail,
    conversation_with,
    note_texts,
    post_message,
    stored_counts,
)

MEMO_SKILL_MD = """
---
name: memo
description: Keep memos in a file.
commands:
  - command: notes
    title: Save a memo
    description: Save the rest of the line as a memo
    tool: memo.save
    args: {text: "{query}"}
---
Save memos with memo.save.
"""

MEMO_TOOLS = """
from pathlib import Path

from interlock.tools import Permission, tool

LOG = Path({log!r})


@tool(name="memo.save", title="Save a memo", description="Saves a memo.",
      input_schema={{"type": "object", "properties": {{"text": {{"type": "string", "minLength": 1}}}},
                    "required": ["text"], "additionalProperties": False}},
      permission=Permission.ALLOW, write=True)
def save(args, ctx):
    with LOG.open("a", encoding="utf-8") as out:
        out.write(args["text"] + "\\n")
    return "saved " + args["text"]
"""


@pytest.fixture
def memo_log(tmp_path: Path) -> Path:
    return tmp_path / "memo.log"


@pytest.fixture
def memo_settings(api_settings: Settings, tmp_path: Path, memo_log: Path) -> Settings:
    """Settings with a second skill, ``memo``, that also declares ``/notes``."""
    folder = tmp_path / "more-skills" / "memo"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(dedent(MEMO_SKILL_MD).lstrip("\n"), encoding="utf-8")
    (folder / "tools.py").write_text(
        dedent(MEMO_TOOLS).lstrip("\n").format(log=str(memo_log)), encoding="utf-8"
    )
    return api_settings.model_copy(update={"skills_path": [folder.parent]})


def _memos(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines()


async def test_a_command_proposes_its_call_without_asking_the_model_and_ask_still_asks(
    api_settings: Settings,
) -> None:
    model = ScriptedChatModel(responses=["Saved your note."])
    async with live_server(api_settings, model=model) as server:
        conversation_id = await conversation_with(server)
        response = await post_message(server, conversation_id, "/notes buy milk")
        assert response.status_code == 202, response.text
        log = await server.events_until(conversation_id, 1)

        assert log.types[-1] == "run.paused", log.types
        assert model.calls_made == 0, "the model was called before the decision"
        assert log.of("message.delta") == []
        user, assistant = [e["message"] for e in log.of("message.completed")]
        assert (user["role"], user["content"]) == ("user", "/notes buy milk")
        assert user["id"] == response.json()["message_id"]
        assert assistant["role"] == "assistant" and assistant["content"] == ""
        [call] = [e["tool_call"] for e in log.of("tool_call.interrupted")]
        assert call["name"] == "notes.add" and call["permission"] == "ASK"
        assert call["proposed_args"] == {"text": "buy milk"}
        assert call["message_id"] == assistant["id"] and call["run_id"] == response.json()["run_id"]
        assert log.of("run.paused")[0]["pending"] == [call["id"]]
        assert note_texts(server) == []

        detail = await conversation_detail(server, conversation_id)
        assert [m["role"] for m in detail["messages"]] == ["user", "assistant"]
        assert [c["id"] for c in detail["messages"][1]["tool_calls"]] == [call["id"]]
        assert detail["status"] == "paused"

        assert (await server.decide(call["id"], type="approve")).status_code == 200
        log = await server.events_until(conversation_id, 2)
        assert log.types[-1] == "run.completed", log.types
        assert note_texts(server) == ["buy milk"]
        assert model.calls_made == 1
        assert log.of("message.completed")[-1]["message"]["content"] == "Saved your note."
        history = model.received[0]
        assert isinstance(history[1], HumanMessage) and history[1].text == "/notes buy milk"
        assert isinstance(history[2], AIMessage)
        assert [(c["name"], c["args"]) for c in history[2].tool_calls] == [
            ("notes_add", {"text": "buy milk"})
        ]
        assert isinstance(history[3], ToolMessage) and history[3].tool_call_id == call["id"]


async def test_a_command_with_the_right_claim_runs(api_settings: Settings) -> None:
    async with live_server(api_settings) as server:
        conversation_id = await conversation_with(server)
        response = await post_message(server, conversation_id, "/notes  call mum  ", NOTES_CLAIM)
        assert response.status_code == 202, response.text
        log = await server.events_until(conversation_id, 1)
        assert log.types[-1] == "run.paused", log.types
        [call] = [e["tool_call"] for e in log.of("tool_call.interrupted")]
        assert call["name"] == "notes.add" and call["proposed_args"] == {"text": "call mum"}


async def test_an_allowed_command_runs_at_once_then_the_model_answers(
    api_settings: Settings,
) -> None:
    model = ScriptedChatModel(responses=["Noted without asking."])
    async with live_server(api_settings, model=model) as server:
        response = await server.client.patch(
            "/api/employees/assistant", json={"tool_overrides": {"notes.add": "ALLOW"}}
        )
        assert response.status_code == 200, response.text
        conversation_id = await conversation_with(server)
        assert (await post_message(server, conversation_id, "/notes buy milk")).status_code == 202
        log = await server.events_until(conversation_id, 1)
        assert log.types[-1] == "run.completed", log.types
        assert log.of("tool_call.interrupted") == []
        [done] = [e["tool_call"] for e in log.of("tool_call.completed")]
        assert (done["name"], done["status"], done["permission"]) == (
            "notes.add",
            "succeeded",
            "ALLOW",
        )
        assert note_texts(server) == ["buy milk"]
        assert model.calls_made == 1


async def test_a_command_in_two_skills_needs_a_claim(
    memo_settings: Settings, memo_log: Path
) -> None:
    model = ScriptedChatModel(responses=["Memo saved."])
    async with live_server(memo_settings, model=model) as server:
        skills = {s["name"]: s for s in (await server.client.get("/api/skills")).json()}
        assert skills["memo"]["status"] == "loaded", skills["memo"]["error"]
        menu = (await server.client.get("/api/employees/assistant/commands")).json()
        assert [(c["skill"], c["command"]) for c in menu] == [("notes", "notes"), ("memo", "notes")]

        conversation_id = await conversation_with(server)
        error = error_of(
            await post_message(server, conversation_id, "/notes buy milk"),
            422,
            "slash_command_ambiguous",
        )
        assert error["details"]["candidates"] == [
            {"skill": "notes", "command": "notes", "title": "Add a note"},
            {"skill": "memo", "command": "notes", "title": "Save a memo"},
        ]
        await assert_nothing_stored(server, conversation_id)

        # The claim picks memo: its ALLOW tool runs at once, then the model answers with the
        # memo skill loaded in the conversation.
        claim = {"skill": "memo", "command": "notes"}
        assert (
            await post_message(server, conversation_id, "/notes buy milk", claim)
        ).status_code == 202
        log = await server.events_until(conversation_id, 1)
        assert log.types[-1] == "run.completed", log.types
        [done] = [e["tool_call"] for e in log.of("tool_call.completed")]
        assert (done["name"], done["status"]) == ("memo.save", "succeeded")
        assert _memos(memo_log) == ["buy milk"]
        assert note_texts(server) == []
        assert stored_counts(server, conversation_id)[2] == ["memo"]
        assert "memo_save" in model.bound_tool_names_seen[0]
        assert log.of("message.completed")[-1]["message"]["content"] == "Memo saved."

        # The claim picks notes: its ASK tool pauses.
        assert (
            await post_message(server, conversation_id, "/notes call mum", NOTES_CLAIM)
        ).status_code == 202
        log = await server.events_until(conversation_id, 2)
        assert log.types[-1] == "run.paused", log.types
        interrupted = [e["tool_call"] for e in log.of("tool_call.interrupted")]
        assert [(c["name"], c["proposed_args"]) for c in interrupted] == [
            ("notes.add", {"text": "call mum"})
        ]
        assert _memos(memo_log) == ["buy milk"]
        assert model.calls_made == 1

        # Scout may use neither skill's /notes.
        scout = await conversation_with(server, "scout")
        error_of(
            await post_message(server, scout, "/notes x", claim), 422, "slash_command_unavailable"
        )
        error_of(await post_message(server, scout, "/notes x"), 422, "slash_command_unavailable")


async def test_a_typed_command_skips_the_skill_whose_tool_is_denied_as_the_menu_does(
    memo_settings: Settings, memo_log: Path
) -> None:
    model = ScriptedChatModel(responses=["Memo saved."])
    async with live_server(memo_settings, model=model) as server:
        response = await server.client.patch(
            "/api/employees/assistant", json={"tool_overrides": {"notes.add": "DENY"}}
        )
        assert response.status_code == 200, response.text
        menu = (await server.client.get("/api/employees/assistant/commands")).json()
        assert [(c["skill"], c["command"]) for c in menu] == [("memo", "notes")]

        conversation_id = await conversation_with(server)
        assert (await post_message(server, conversation_id, "/notes buy milk")).status_code == 202
        log = await server.events_until(conversation_id, 1)
        assert log.types[-1] == "run.completed", log.types
        assert _memos(memo_log) == ["buy milk"]
        assert note_texts(server) == []


async def test_a_command_reads_the_same_in_any_case(api_settings: Settings) -> None:
    """Found in QA: ``/help`` was refused but ``/NOTES x`` went to the model as text. A command
    word is read in any case (a phone capitalises it); the rest of the line keeps its case."""
    async with live_server(api_settings) as server:
        for content, claim in (
            ("/NOTES Buy Milk", None),
            ("/Notes Buy Milk", NOTES_CLAIM),
            ("/nOtEs Buy Milk", {"skill": "notes", "command": "NOTES"}),
        ):
            conversation_id = await conversation_with(server)
            response = await post_message(server, conversation_id, content, claim)
            assert response.status_code == 202, (content, response.text)
            log = await server.events_until(conversation_id, 1)
            [call] = [e["tool_call"] for e in log.of("tool_call.interrupted")]
            assert (call["name"], call["proposed_args"]) == ("notes.add", {"text": "Buy Milk"})

        conversation_id = await conversation_with(server)
        error = error_of(await post_message(server, conversation_id, "/NOTES"), 422, "invalid_args")
        assert error["message"] == "/notes needs some text."
        await assert_nothing_stored(server, conversation_id)
