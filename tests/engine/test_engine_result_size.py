"""Engine: big tool results stay bounded on the stream.

* Text over ``max_tool_result_chars`` is cut with a note (the model and the card see the cut
  text), and ``tool_call.completed`` carries it once: the tool message's ``content`` is left
  empty in the event because it is the call's ``result_text``; the conversation's ``GET``
  still has the tool message in full.
* Data whose JSON is over the same limit is dropped with a note in the text: 2 MB of data no
  longer becomes a 2 MB event replayed on every reconnect, nor a 2 MB row.
"""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import select

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import ToolCall
from interlock.tools import Permission, ToolContext, ToolResult, tool
from support.live import LiveServer, live_server
from support.sse import EventLog, collect, terminals

LIMIT = 1_000


async def _run(server: LiveServer, content: str) -> tuple[str, EventLog]:
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, content)
    log = await collect(server.client, conversation_id, until=terminals(1))
    await server.idle()
    return conversation_id, log


@tool(name="test.big_text", title="Big text", description="Long text.", permission=Permission.ALLOW)
def big_text(args: dict[str, Any], ctx: ToolContext) -> str:
    return "t" * (LIMIT * 50)


@tool(name="test.big_data", title="Big data", description="Huge data.", permission=Permission.ALLOW)
def big_data(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ToolResult(text="Here is the table.", data={"rows": ["x" * 1_000] * 2_000})


@tool(name="test.small_data", title="Small", description="Small data.", permission=Permission.ALLOW)
def small_data(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ToolResult(text="ok", data={"rows": [1, 2, 3]})


async def test_engine_a_cut_result_is_sent_once_in_its_event(make_settings: Any) -> None:
    settings: Settings = make_settings(max_tool_result_chars=LIMIT)
    model = ScriptedChatModel(
        responses=[scripted_message("Reading.", ("test_big_text", {})), "Long."]
    )
    async with live_server(settings, model=model) as server:
        server.services.registry.register(big_text)
        conversation_id, log = await _run(server, "read it")

        (completed,) = log.of("tool_call.completed")
        text = completed["tool_call"]["result_text"]
        assert text.startswith("t" * LIMIT) and "[Result cut:" in text
        assert completed["message"]["content"] == ""  # not a second copy
        assert completed["message"]["tool_call_id"] == completed["tool_call"]["id"]
        assert len(json.dumps(completed)) < LIMIT + 2_000  # once, plus the envelope
        # The model saw the cut text; the stored tool message has it too.
        assert model.received[1][-1].content == text
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        (tool_message,) = [m for m in detail["messages"] if m["role"] == "tool"]
        assert tool_message["content"] == text


async def test_engine_data_over_the_limit_is_dropped_with_a_note(make_settings: Any) -> None:
    settings: Settings = make_settings(max_tool_result_chars=LIMIT)
    model = ScriptedChatModel(
        responses=[
            scripted_message("Fetching.", ("test_big_data", {}), ("test_small_data", {})),
            "Fetched.",
        ]
    )
    async with live_server(settings, model=model) as server:
        server.services.registry.register(big_data)
        server.services.registry.register(small_data)
        _conversation_id, log = await _run(server, "fetch")

        big, small = (e["tool_call"] for e in log.of("tool_call.completed"))
        assert big["status"] == "succeeded" and big["result_data"] is None
        assert big["result_text"] == (
            "Here is the table.\n\n[Result data dropped: 2,006,010 characters of data; "
            f"the limit is {LIMIT:,}.]"
        )
        assert small["result_data"] == {"rows": [1, 2, 3]}  # under the limit: kept
        biggest = max(len(json.dumps(frame.data)) for frame in log.frames)
        assert biggest < 10_000
        with server.services.db.session() as session:
            stored = {c.name: c.result_data for c in session.exec(select(ToolCall)).all()}
        assert stored == {"test.big_data": None, "test.small_data": {"rows": [1, 2, 3]}}
