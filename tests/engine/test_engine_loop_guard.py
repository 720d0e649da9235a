"""The loop guard: a call the person declined is not put to them again (issue 8, section 6)."""

from __future__ import annotations

from langchain_core.messages import ToolMessage
from sqlmodel import col, select

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import AuditRecord
from support.live import live_server
from support.sse import collect, terminals

MILK = {"text": "buy milk"}
NOTE = 1  # the first note of a fresh database


async def test_a_rejected_call_proposed_again_is_closed_by_policy_repeat_then_the_run_fails(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message("Adding.", ("notes_add", MILK)),
            # After the reject: the same call again, twice in the same run.
            scripted_message("Let me try again.", ("notes_add", MILK)),
            scripted_message("Once more.", ("notes_add", {"text": "buy milk"})),
            "unused",
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "note: buy milk")
        log = await collect(server.client, conversation_id, until=terminals(1))
        [first] = [e["tool_call"]["id"] for e in log.of("tool_call.interrupted")]
        assert (await server.decide(first, type="reject", message="not today")).status_code == 200
        log = await collect(server.client, conversation_id, until=terminals(2))
        await server.idle()

        # Never put to the person again: no new card, closed as rejected at once.
        assert [e["tool_call"]["id"] for e in log.of("tool_call.interrupted")] == [first]
        repeats = [
            e["tool_call"] for e in log.of("tool_call.completed") if e["tool_call"]["id"] != first
        ]
        assert [(c["status"], c["error"]["code"]) for c in repeats] == [
            ("rejected", "repeated"),
            ("rejected", "repeated"),
        ]
        assert log.types[-1] == "run.failed"
        [failed] = log.of("run.failed")
        assert failed["error"]["code"] == "repeated_rejected_call"
        assert model.calls_made == 3

        # The model was told why, in the tool message of the repeat.
        [told] = [
            m
            for m in model.received[2]
            if isinstance(m, ToolMessage) and m.tool_call_id == repeats[0]["id"]
        ]
        assert told.status == "error"
        assert told.text.startswith("Not asked again: the person already declined this exact call")

        with server.services.db.session() as session:
            records = session.exec(select(AuditRecord).order_by(col(AuditRecord.seq))).all()
        assert [(r.outcome, r.decider) for r in records][-2:] == [
            ("rejected", "policy:repeat"),
            ("rejected", "policy:repeat"),
        ]


async def test_a_new_user_message_mentioning_the_tool_resets_the_guard(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message("Adding.", ("notes_add", MILK)),
            "OK, I won't.",
            # Next turn, the person talks about something else: the repeat is refused.
            scripted_message("Adding.", ("notes_add", MILK)),
            "Understood.",
            # Then they ask for it again: a card again.
            scripted_message("Adding.", ("notes_add", MILK)),
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "note: buy milk")
        log = await collect(server.client, conversation_id, until=terminals(1))
        [first] = [e["tool_call"]["id"] for e in log.of("tool_call.interrupted")]
        assert (await server.decide(first, type="reject")).status_code == 200
        await server.idle()

        await server.say(conversation_id, "what's the weather like?")
        log = await collect(server.client, conversation_id, until=terminals(3))
        assert log.types[-1] == "run.completed"
        assert log.of("tool_call.interrupted")[-1]["tool_call"]["id"] == first
        assert log.of("tool_call.completed")[-1]["tool_call"]["error"]["code"] == "repeated"

        await server.say(conversation_id, "please add that note after all")
        log = await collect(server.client, conversation_id, until=terminals(4))
        assert log.types[-1] == "run.paused"
        card = log.of("tool_call.interrupted")[-1]["tool_call"]
        assert card["id"] != first and card["proposed_args"] == MILK


async def test_asking_again_in_other_words_resets_the_guard(engine_settings: Settings) -> None:
    """The tryout: f"delete note {NOTE}", rejected; f"remove note {NOTE}" was refused by the guard."""
    model = ScriptedChatModel(
        responses=[
            scripted_message("Adding.", ("notes_add", {"text": "loopy"})),
            "Added.",
            scripted_message("Deleting.", ("notes_delete", {"id": NOTE})),
            "OK, I won't.",
            scripted_message("Deleting.", ("notes_delete", {"id": NOTE})),
            "OK, I won't.",
            scripted_message("Deleting.", ("notes_delete", {"id": NOTE})),
        ]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add a note loopy")
        log = await collect(server.client, conversation_id, until=terminals(1))
        [added] = [e["tool_call"]["id"] for e in log.of("tool_call.interrupted")]
        assert (await server.decide(added, type="approve")).status_code == 200
        await server.idle()
        await server.say(conversation_id, f"delete note {NOTE}")
        log = await collect(server.client, conversation_id, until=terminals(3))
        first = log.of("tool_call.interrupted")[-1]["tool_call"]["id"]
        assert first != added
        assert (await server.decide(first, type="reject")).status_code == 200
        await server.idle()

        # A word of the same kind as "delete": a card again.
        await server.say(conversation_id, f"remove note {NOTE}")
        log = await collect(server.client, conversation_id, until=terminals(5))
        assert log.types[-1] == "run.paused"
        second = log.of("tool_call.interrupted")[-1]["tool_call"]
        assert second["id"] != first and second["proposed_args"] == {"id": NOTE}
        assert (await server.decide(second["id"], type="reject")).status_code == 200
        await server.idle()

        # No action word at all, but the call's own subject ("36"): a card again.
        await server.say(conversation_id, f"get rid of {NOTE} after all")
        log = await collect(server.client, conversation_id, until=terminals(7))
        assert log.types[-1] == "run.paused"
        third = log.of("tool_call.interrupted")[-1]["tool_call"]
        assert third["id"] not in (first, second["id"])


def test_asks_again_knows_words_of_the_same_kind_and_the_calls_values() -> None:
    from interlock.engine.loop_guard import asks_again
    from interlock.tools import Permission, Tool

    def tool(name: str, title: str) -> Tool:
        schema = {"type": "object"}
        return Tool(name, title, title, schema, lambda args, ctx: "", permission=Permission.ASK)

    delete = tool("notes.delete", "Delete a note")
    assert asks_again(f"remove note {NOTE}", delete, {"id": NOTE})
    assert asks_again("please erase it", delete, {"id": NOTE})
    assert asks_again("drop #36", delete, {"id": NOTE})
    assert not asks_again("what's the weather like?", delete, {"id": NOTE})
    assert not asks_again("note 360 is fine", delete, {"id": NOTE})
    add = tool("notes.add", "Add a note")
    assert asks_again("save that note after all", add, MILK)
    assert asks_again("Buy milk, yes", add, MILK)
    assert not asks_again("what's the weather like?", add, MILK)
