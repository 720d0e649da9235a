"""Tools the browser runs, for the API tests of ``POST /api/tool-calls/{id}/result``: a clock
(ALLOW) and a picker (ASK, with an output schema), and the requests and reads around them."""

from __future__ import annotations

from typing import Any

import httpx
from sqlmodel import select

from interlock.models import ScriptedChatModel
from interlock.storage import Message, ToolCall
from interlock.tools import Confirmation, Permission, ToolContext, ToolError, tool
from support.live import LiveServer


def _confirm(args: dict[str, Any], ctx: ToolContext) -> Confirmation:
    return Confirmation(title="Share", summary="Share it.", action_label="Share")


def _never(args: dict[str, Any], ctx: ToolContext) -> str:
    raise ToolError("internal", "runs in the browser")


CLOCK = tool(
    name="test.clock",
    title="Read the clock",
    description="Browser clock.",
    output_schema={
        "type": "object",
        "properties": {"time_zone": {"type": "string", "minLength": 1}},
        "required": ["time_zone"],
        "additionalProperties": False,
    },
    permission=Permission.ALLOW,
    execution="frontend",
)(_never)
PICK = tool(
    name="test.pick",
    title="Pick text",
    description="Browser selection.",
    input_schema={
        "type": "object",
        "properties": {"purpose": {"type": "string"}},
        "additionalProperties": False,
    },
    output_schema={
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
    permission=Permission.ASK,
    confirmation=_confirm,
    execution="frontend",
)(_never)


async def started_with(server: LiveServer, *replies: Any) -> tuple[str, ScriptedChatModel]:
    """A conversation whose first message ("go") the model answers with ``replies``, the test
    tools registered; its id and the model."""
    model = ScriptedChatModel(responses=list(replies))
    server.services.engine.model = model
    if server.services.registry.get("test.clock") is None:
        server.services.registry.register_many([CLOCK, PICK])
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, "go")
    return conversation_id, model


async def post_result(server: LiveServer, call_id: str, body: Any, **kw: Any) -> httpx.Response:
    """POST ``body`` as the browser's result of ``call_id``."""
    return await server.client.post(f"/api/tool-calls/{call_id}/result", json=body, **kw)


def call_row(server: LiveServer, call_id: str) -> tuple[str, int]:
    """The call's status and its number of tool messages."""
    with server.services.db.session() as session:
        call = session.get(ToolCall, call_id)
        assert call is not None
        messages = session.exec(select(Message).where(Message.tool_call_id == call_id)).all()
        return call.status, len(messages)
