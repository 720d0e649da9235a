"""C18 — formats are checked (main job), end to end.

A tool whose schema has ``url`` (format ``uri``) and ``to`` (format ``email``) is called by the
model with ``"not a url"`` and ``"nobody"``. The call must be refused before any card appears
(no ``tool_call.interrupted``, nothing pending, the tool never runs) and the model must get the
validation error for both fields in the call's tool message. The start-up check (a registry
refuses to exist when the ``uri`` or ``email`` checker is not active) is
``tests/tools/test_tools_schema.py::test_a_missing_format_checker_stops_the_registry_loudly``;
the validator alone is ``tests/tools/test_tools_validation.py::test_case_c18_...``.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.tools import Permission, ToolContext, tool
from support.live import live_server
from support.sse import collect, terminals


async def test_case_c18_a_bad_uri_and_email_are_refused_before_any_card(
    case_settings: Settings,
) -> None:
    ran: list[dict[str, Any]] = []

    @tool(
        name="c18.send",
        title="Send a link",
        description="Mail a link to someone.",
        input_schema={
            "type": "object",
            "properties": {
                "url": {"type": "string", "format": "uri"},
                "to": {"type": "string", "format": "email"},
            },
            "required": ["url", "to"],
            "additionalProperties": False,
        },
        permission=Permission.ASK,
        write=True,
    )
    def send(args: dict[str, Any], ctx: ToolContext) -> str:
        ran.append(args)
        return "sent"

    model = ScriptedChatModel(
        responses=[
            scripted_message("Sending it.", ("c18_send", {"url": "not a url", "to": "nobody"})),
            "The link or the address was not valid.",
        ]
    )
    async with live_server(case_settings, model=model) as server:
        server.services.registry.register(send)
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "send the link")
        log = await collect(server.client, conversation_id, until=terminals(1))
        await server.idle()

        assert log.types[-1] == "run.completed", log.types
        assert log.of("tool_call.interrupted") == []  # no card, ever
        pending = await server.client.get(f"/api/conversations/{conversation_id}/pending")
        assert pending.json() == []
        assert ran == []
        [completed] = [e["tool_call"] for e in log.of("tool_call.completed")]
        assert completed["name"] == "c18.send"
        assert completed["error"]["code"] == "invalid_args"

        # The model got the validation error for both fields in the call's tool message.
        assert model.calls_made == 2
        [answer] = [m for m in model.received[1] if isinstance(m, ToolMessage)]
        assert answer.tool_call_id == completed["id"]
        text = str(answer.content)
        assert text.startswith("Error [invalid_args]"), text
        assert "to: Must be a valid email address." in text, text
        assert "url: Must be a valid web address." in text, text
