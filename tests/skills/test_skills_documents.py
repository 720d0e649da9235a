"""The documents skill: list, read and write Markdown documents; writes are reviewed in a modal
with the new text and the text it replaces."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from support.live import live_server

PLAN = "# Trip\n\n* pack\n* <script>alert(1)</script>\n"
PLAN_V2 = "# Trip\n\n* pack\n* book the ferry\n"


async def test_documents_write_then_read_round_trip_with_review(make_settings: Any) -> None:
    settings: Settings = make_settings()
    model = ScriptedChatModel(
        responses=[
            scripted_message("", ("load_skill", {"name": "documents"})),
            scripted_message("", ("documents_write", {"title": " Trip  plan ", "markdown": PLAN})),
            "Saved.",
            scripted_message("", ("documents_write", {"title": "Trip plan", "markdown": "x"})),
            "Saved again.",
            scripted_message(
                "", ("documents_list", {}), ("documents_read", {"title": "Trip plan"})
            ),
            "Here it is.",
        ]
    )
    async with live_server(settings, model=model) as server:
        conversation_id = await server.new_conversation()
        log = await server.turn(conversation_id, "write my trip plan")
        (interrupted,) = log.of("tool_call.interrupted")
        call = interrupted["tool_call"]
        assert (call["name"], call["modal"], call["write"]) == ("documents.write", True, True)
        assert call["confirmation"] == {
            "title": "Save a document",
            "summary": "Create the document “Trip plan” (4 lines).",
            "action_label": "Save document",
            "detail": PLAN,
            "previous": None,
        }
        assert (await server.decide(call["id"], type="approve")).status_code == 200
        log = await server.events_until(conversation_id, 2)
        assert log.of("tool_call.completed")[-1]["tool_call"]["result_text"] == (
            "Created the document “Trip plan” (4 lines)."
        )

        log = await server.turn(conversation_id, "change it")
        call = log.of("tool_call.interrupted")[-1]["tool_call"]
        assert call["confirmation"]["previous"] == PLAN
        assert call["confirmation"]["detail"] == "x"
        assert call["confirmation"]["summary"] == (
            "Replace the text of the document “Trip plan” (4 lines now, 1 line after)."
        )
        edited = await server.decide(
            call["id"], type="edit", args={"title": "Trip plan", "markdown": PLAN_V2}
        )
        assert edited.status_code == 200, edited.text
        log = await server.events_until(conversation_id, 4)
        done = log.of("tool_call.completed")[-1]["tool_call"]
        assert done["executed_args"] == {"title": "Trip plan", "markdown": PLAN_V2}
        assert done["result_text"] == "Saved the document “Trip plan” (4 lines)."

        log = await server.turn(conversation_id, "show it")
        listing, read = (e["tool_call"] for e in log.of("tool_call.completed")[-2:])
        assert listing["result_text"] == "Trip plan (4 lines)"
        assert [d["title"] for d in listing["result_data"]["documents"]] == ["Trip plan"]
        assert read["result_text"] == PLAN_V2
        assert read["result_data"] == {"title": "Trip plan", "markdown": PLAN_V2}
        tool_messages = [m for m in model.received[-1] if isinstance(m, ToolMessage)]
        assert tool_messages[-1].content == PLAN_V2


async def test_documents_are_private_and_a_missing_title_is_not_found(make_settings: Any) -> None:
    from interlock.storage import Document

    settings: Settings = make_settings()
    model = ScriptedChatModel(
        responses=[
            scripted_message("", ("load_skill", {"name": "documents"})),
            scripted_message("", ("documents_read", {"title": "Secret"}), ("documents_list", {})),
            "Nothing there.",
        ]
    )
    async with live_server(settings, model=model) as server:
        with server.services.db.session() as session:
            session.add(Document(owner_id="user_other", title="Secret", markdown="their text"))
            session.commit()
        conversation_id = await server.new_conversation()
        log = await server.turn(conversation_id, "read Secret")

        read, listing = (e["tool_call"] for e in log.of("tool_call.completed")[-2:])
        assert read["error"]["code"] == "not_found"
        assert read["error"]["message"] == "There is no document titled “Secret”."
        assert listing["result_text"] == "No documents yet."
        assert "their text" not in str(log.frames)
