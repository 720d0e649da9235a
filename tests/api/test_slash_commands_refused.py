"""Slash commands that cannot run are refused, and store nothing (no message, no run, no
event): a claim the text or the employee does not back, an unknown command, arguments
breaking the schema, a denied tool. The conversation stays usable."""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from interlock.models import ScriptedChatModel
from interlock.settings import Settings
from interlock.storage import Message
from support.api_errors import error_of
from support.live import live_server
from support.slash_commands import (
    NOTES_CLAIM,
    assert_nothing_stored,
    conversation_with,
    post_message,
)


async def test_a_claim_for_a_skill_the_employee_lacks_is_refused_and_nothing_is_stored(
    api_settings: Settings,
) -> None:
    async with live_server(api_settings) as server:
        conversation_id = await conversation_with(server, "scout")
        error = error_of(
            await post_message(server, conversation_id, "/notes buy milk", NOTES_CLAIM),
            422,
            "slash_command_unavailable",
        )
        assert error["message"] == (
            "Scout has no command /notes from the skill “notes”, so nothing was run. Pick a "
            "command from the menu again, or write your request as a message."
        )
        error_of(
            await post_message(server, conversation_id, "/notes buy milk"),
            422,
            "slash_command_unavailable",
        )
        ada = await conversation_with(server)
        error_of(
            await post_message(
                server, ada, "/notes buy milk", {"skill": "ask", "command": "notes"}
            ),
            422,
            "slash_command_unavailable",
        )
        for refused in (conversation_id, ada):
            await assert_nothing_stored(server, refused)


async def test_unknown_commands_are_refused_and_paths_are_ordinary_text(
    api_settings: Settings,
) -> None:
    model = ScriptedChatModel(responses=["Yes, it is."])
    async with live_server(api_settings, model=model) as server:
        conversation_id = await conversation_with(server)
        error = error_of(
            await post_message(server, conversation_id, "/nope x"), 422, "slash_command_unknown"
        )
        assert "/nope" in error["message"]
        error_of(await post_message(server, conversation_id, "/nope"), 422, "slash_command_unknown")
        await assert_nothing_stored(server, conversation_id)

        response = await post_message(server, conversation_id, "/etc/hosts is a file")
        assert response.status_code == 202, response.text
        log = await server.events_until(conversation_id, 1)
        assert log.types[-1] == "run.completed", log.types
        assert log.of("tool_call.created") == []
        assert model.calls_made == 1
        assert model.received[0][-1].text == "/etc/hosts is a file"
        assert log.of("message.completed")[-1]["message"]["content"] == "Yes, it is."


async def test_a_claim_must_match_the_text(api_settings: Settings) -> None:
    async with live_server(api_settings) as server:
        conversation_id = await conversation_with(server)
        for content in ("/nope buy milk", "buy milk", "/notesx buy milk"):
            response = await post_message(server, conversation_id, content, NOTES_CLAIM)
            assert response.status_code == 422, (content, response.text)
        bad_claims: list[Any] = [
            {"skill": "notes"},
            {"skill": "notes", "command": "notes", "tool": "notes.delete"},
            {"skill": "", "command": "notes"},
            "notes",
        ]
        for claim in bad_claims:
            response = await server.client.post(
                f"/api/conversations/{conversation_id}/messages",
                json={"content": "/notes buy milk", "command": claim},
            )
            assert response.status_code == 422, (claim, response.text)
            assert response.json()["error"]["code"] == "invalid_request"
        await assert_nothing_stored(server, conversation_id)


async def test_a_command_with_args_breaking_the_schema_is_refused(api_settings: Settings) -> None:
    async with live_server(api_settings) as server:
        conversation_id = await conversation_with(server)
        for content, rule, words in (
            ("/notes", "minLength", "/notes needs some text."),
            ("/notes   ", "minLength", "/notes needs some text."),
            (
                "/notes " + "x" * 2001,
                "maxLength",
                "The text after /notes must have at most 2000 characters.",
            ),
        ):
            error = error_of(
                await post_message(server, conversation_id, content), 422, "invalid_args"
            )
            fields = error["details"]["errors"]
            assert {f"{'/'.join(f['path'])}:{f['rule']}" for f in fields} >= {f"text:{rule}"}
            # The person reads a sentence about what they typed, not a field and a rule.
            assert error["message"] == words, error
        await assert_nothing_stored(server, conversation_id)


async def test_a_command_bound_to_a_denied_tool_is_refused(api_settings: Settings) -> None:
    async with live_server(api_settings) as server:
        response = await server.client.patch(
            "/api/employees/assistant", json={"tool_overrides": {"notes.add": "DENY"}}
        )
        assert response.status_code == 200, response.text
        conversation_id = await conversation_with(server)
        for claim in (None, NOTES_CLAIM):
            error_of(
                await post_message(server, conversation_id, "/notes buy milk", claim),
                403,
                "permission_denied",
            )
        await assert_nothing_stored(server, conversation_id)


async def test_a_refused_command_leaves_the_conversation_usable(api_settings: Settings) -> None:
    async with live_server(api_settings) as server:
        conversation_id = await conversation_with(server)
        error_of(await post_message(server, conversation_id, "/nope"), 422, "slash_command_unknown")
        error_of(await post_message(server, conversation_id, "/notes"), 422, "invalid_args")
        assert (await post_message(server, conversation_id, "/notes fine")).status_code == 202
        log = await server.events_until(conversation_id, 1)
        assert log.types[-1] == "run.paused", log.types
        with server.services.db.session() as session:
            contents = session.exec(
                select(Message.content)
                .where(Message.conversation_id == conversation_id)
                .order_by(col(Message.id))
            ).all()
        assert list(contents) == ["/notes fine", ""]


async def test_an_unknown_or_unavailable_command_in_any_case_names_the_commands_there_are(
    api_settings: Settings,
) -> None:
    model = ScriptedChatModel(responses=[])
    async with live_server(api_settings, model=model) as server:
        ada = await conversation_with(server)
        for content in ("/help", "/HELP me", "/Help"):
            error = error_of(await post_message(server, ada, content), 422, "slash_command_unknown")
            assert error["message"] == (
                "Ada has no command /help. You can use /notes, or write your request as a message."
            )
        await assert_nothing_stored(server, ada)

        scout = await conversation_with(server, "scout")
        error = error_of(
            await post_message(server, scout, "/NOTES x"), 422, "slash_command_unavailable"
        )
        assert error["message"] == (
            "Scout has no command /notes; write your request as a message instead."
        )
        await assert_nothing_stored(server, scout)
        assert model.calls_made == 0


async def test_words_that_only_look_like_a_command_are_refused_and_never_reach_the_model(
    api_settings: Settings,
) -> None:
    """Decided on the text as it reads (NFKC, invisible characters dropped): an invisible
    character, fullwidth letters or an accented letter in the command word do not make an
    ordinary message of it (they did: 202, and the model got the text)."""
    model = ScriptedChatModel(responses=[])
    async with live_server(api_settings, model=model) as server:
        ada = await conversation_with(server)
        invisible = (
            "Ada has no command written like that: it looks like /notes but holds an invisible "
            "character. Type /notes in plain letters to run it, or write your request as a "
            "message."
        )
        lookalike = (
            "Ada has no command written like that: it looks like /notes but is written in "
            "look-alike characters. Type /notes in plain letters to run it, or write your "
            "request as a message."
        )
        cases = {
            "/notes\u202e x": invisible,
            "/no\u200btes x": invisible,
            "\ufeff/notes x": invisible,
            "/\uff2e\uff2f\uff34\uff25\uff33 fullwidth": lookalike,
            "/note\u017f x": lookalike,  # a long s: not an ASCII s, whatever the case rules
            "/n\u00f6tes x": "Ada has no command /n\u00f6tes. You can use /notes, or write your "
            "request as a message.",
            "/N\u00d6TES": "Ada has no command /n\u00f6tes. You can use /notes, or write your "
            "request as a message.",
            "/\uff48\uff45\uff4c\uff50 me": "Ada has no command /help. You can use /notes, or "
            "write your request as a message.",
        }
        for content, words in cases.items():
            error = error_of(await post_message(server, ada, content), 422, "slash_command_unknown")
            assert error["message"] == words, content
        await assert_nothing_stored(server, ada)
        assert model.calls_made == 0
