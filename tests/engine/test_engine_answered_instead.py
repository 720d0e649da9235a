"""A call of a tool that asks nothing, answered with ``respond`` instead of run.

Found by trying the product: an approver answered Ada's "Add a note" card with "hi"; the note
was never added, yet the model's tool message was just "hi", so Ada said "Done — I added the
note “team lunch”." The tool message now says the call did not run, and the model says so.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlmodel import select

from interlock.settings import Settings
from interlock.storage import Message, ToolCall
from support.live import live_server
from support.notes import stored_notes


async def test_an_answer_instead_of_running_a_note_tells_the_model_nothing_ran(
    make_settings: Callable[..., Settings],
) -> None:
    async with live_server(make_settings()) as server:
        conversation_id = await server.new_conversation()
        log = await server.turn(conversation_id, "Add a note team lunch")
        [interrupted] = log.of("tool_call.interrupted")
        call_id = interrupted["tool_call"]["id"]

        response = await server.decide(call_id, type="respond", message="hi")
        assert response.status_code == 200, response.text
        log = await server.events_until(conversation_id, 2)
        assert log.types[-1] == "run.completed", log.types

        db = server.services.db
        assert stored_notes(db) == []
        with db.session() as session:
            call = session.get(ToolCall, call_id)
            assert call is not None and call.started_at is None and call.executed_args is None
            [tool_message] = session.exec(
                select(Message).where(Message.tool_call_id == call_id)
            ).all()
        assert tool_message.content == (
            "Not run: the person answered instead of running “Add a note”: hi"
        )
        reply = log.of("message.completed")[-1]["message"]["content"]
        assert reply == "Understood — I did not add the note. You answered: hi."
        assert "Done" not in reply


async def test_a_question_answered_keeps_the_answer_as_its_result(
    make_settings: Callable[..., Settings],
) -> None:
    async with live_server(make_settings()) as server:
        conversation_id = await server.new_conversation()
        log = await server.turn(conversation_id, "Ask me to choose between tea, coffee and juice")
        [interrupted] = log.of("tool_call.interrupted")
        call_id = interrupted["tool_call"]["id"]
        response = await server.decide(call_id, type="respond", message="coffee")
        assert response.status_code == 200, response.text
        await server.events_until(conversation_id, 2)
        with server.services.db.session() as session:
            [tool_message] = session.exec(
                select(Message).where(Message.tool_call_id == call_id)
            ).all()
        assert tool_message.content == "coffee"
