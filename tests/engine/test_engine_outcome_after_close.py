"""Engine: a call closed by someone else while its tool ran keeps that close.

The tool step stores a result only if the call is still ``running``
(:func:`interlock.engine.outcomes.close_running`: the compare-and-set, the sequence held and
the tool message go out in one round trip; the message is inserted only if the call has none,
and a close that matched nothing is rolled back).
Here the tool's own handler closes its call as a cancel from another worker would, then
returns: its tool had started, so the close says ``failed`` with ``outcome_unknown`` ("Stopped
while running ...: it may have happened", never ``cancelled``), with one tool message and one
``tool_call.completed``; the result that then comes is recorded on the call once as what
really happened (``tool_call.finished_late``), the tool message the model read unchanged, and
the run goes on to the model's answer with every event once, in order.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import col, select

from interlock.api.services import Services
from interlock.engine.open_calls import cancel_open_calls
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import Message, ToolCall
from interlock.tools import Permission, ToolContext, tool
from support.live import live_server
from support.sse import collect, terminals

_services: list[Services] = []


@tool(
    name="test.closed_meanwhile",
    title="Closed meanwhile",
    description="Its call is cancelled while it runs.",
    permission=Permission.ALLOW,
)
def closed_meanwhile(args: dict[str, Any], ctx: ToolContext) -> str:
    services = _services[0]
    with services.db.session() as session:
        closed = cancel_open_calls(
            session, services.bus, services.registry, ctx.conversation_id, "cancelled elsewhere"
        )
        services.bus.commit(session)
    assert closed == [ctx.tool_call_id]
    return "ran anyway"


async def test_engine_a_result_after_a_call_closed_while_its_tool_ran_is_recorded_late(
    engine_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[scripted_message("Trying.", ("test_closed_meanwhile", {})), "Stopped."]
    )
    async with live_server(engine_settings, model=model) as server:
        server.services.registry.register(closed_meanwhile)
        _services[:] = [server.services]
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "try it")
        log = await collect(server.client, conversation_id, until=terminals(1))
        await server.idle()
        with server.services.db.session() as session:
            (call,) = session.exec(
                select(ToolCall).where(col(ToolCall.conversation_id) == conversation_id)
            ).all()
            tool_messages = session.exec(
                select(Message).where(col(Message.tool_call_id) == call.id)
            ).all()
    assert log.types[-1] == "run.completed", log.types
    assert [int(str(frame.id)) for frame in log.frames] == list(range(1, len(log.frames) + 1))
    assert call.status == "succeeded" and call.result_text == "ran anyway", call
    assert call.error_code is None and call.finished_late_at is not None
    [said] = [m.content for m in tool_messages]
    assert said.startswith(
        "Error [outcome_unknown]: Stopped while running (cancelled elsewhere): it may have "
        "happened. It was not run again."
    )
    (completed,) = log.of("tool_call.completed")
    assert completed["tool_call"]["status"] == "failed"
    (late,) = log.of("tool_call.finished_late")
    assert late["tool_call"]["status"] == "succeeded"
    assert model.received[1][-1].content == tool_messages[0].content
