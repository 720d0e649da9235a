"""Two AG-UI clients on one thread: racing resumes, and a resume while a run is active.

Found in QA: a client dismissing (``cancelled``) an interrupt that another client had just
approved got ``RUN_FINISHED`` with outcome ``success`` while the approved call was still
running: its thread looked done and idle, and its next message got ``run_active``. Such a
resume now gets one ``RUN_ERROR`` ``run_active``.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from interlock.settings import Settings
from interlock.tools import Permission, ToolContext, tool
from support.live import LiveServer, live_server
from support.notes import stored_notes

from .conftest import agui_run, one, resolved, run_input, types, user_message

release = threading.Event()


@tool(
    name="test.wait",
    title="Wait for the test",
    description="Runs until the test lets it finish.",
    permission=Permission.ASK,
    input_schema={"type": "object", "properties": {}, "additionalProperties": False},
)
def wait_for_the_test(args: dict[str, Any], ctx: ToolContext) -> str:
    assert release.wait(15.0), "the test never released the tool"
    return "released"


async def _interrupted(server: LiveServer, conversation_id: str, text: str) -> dict[str, Any]:
    events = await agui_run(
        server.client, conversation_id, run_input(conversation_id, messages=[user_message(text)])
    )
    [interrupt] = one(events, "RUN_FINISHED")["outcome"]["interrupts"]
    return dict(interrupt)


async def _running(server: LiveServer, conversation_id: str) -> bool:
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    return any(c["status"] == "running" for m in detail["messages"] for c in m["tool_calls"])


def _answer(interrupt_id: str, payload: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    if payload is None:
        return [{"interruptId": interrupt_id, "status": "cancelled"}]
    return [resolved(interrupt_id, payload)]


async def test_two_clients_resuming_one_interrupt_at_once_exactly_one_wins(
    server: LiveServer,
) -> None:
    conversation_id = await server.new_conversation()
    interrupt = await _interrupted(server, conversation_id, "add a note buy milk")
    approve = run_input(conversation_id, resume=_answer(interrupt["id"], {"type": "approve"}))
    edit = run_input(
        conversation_id,
        resume=_answer(interrupt["id"], {"type": "edit", "args": {"text": "buy oat milk"}}),
    )

    first, second = await asyncio.gather(
        agui_run(server.client, conversation_id, approve),
        agui_run(server.client, conversation_id, edit),
    )

    outcomes = sorted([types(first)[-1], types(second)[-1]])
    assert outcomes == ["RUN_ERROR", "RUN_FINISHED"], (first, second)
    winner, loser = (first, second) if types(first)[-1] == "RUN_FINISHED" else (second, first)
    assert loser[0]["code"] == "not_interrupted"
    assert winner[-1]["outcome"] == {"type": "success"}
    await server.idle()
    notes = [text for _, text in stored_notes(server.services.db)]
    assert notes == (["buy milk"] if winner is first else ["buy oat milk"])


async def test_a_resume_while_the_thread_runs_is_run_active_not_a_finished_run(
    api_settings: Settings,
) -> None:
    release.clear()
    async with live_server(api_settings) as server:
        server.services.registry.register(wait_for_the_test)
        conversation_id = await server.new_conversation()
        interrupt = await _interrupted(server, conversation_id, "use test.wait with {}")
        approved = asyncio.create_task(
            agui_run(
                server.client,
                conversation_id,
                run_input(conversation_id, resume=_answer(interrupt["id"], {"type": "approve"})),
            )
        )
        try:
            async with asyncio.timeout(45.0):  # bounded: until the approved call runs
                while not await _running(server, conversation_id):  # noqa: ASYNC110 (HTTP poll)
                    await asyncio.sleep(0.05)
            for resume in (_answer(interrupt["id"]), _answer(interrupt["id"], {"type": "reject"})):
                events = await agui_run(
                    server.client, conversation_id, run_input(conversation_id, resume=resume)
                )
                assert types(events) == ["RUN_ERROR"], events
                assert events[0]["code"] in ("run_active", "not_interrupted"), events
                if resume[0]["status"] == "cancelled":
                    assert events[0]["code"] == "run_active"
        finally:
            release.set()
        done = await asyncio.wait_for(approved, 45.0)
        assert done[-1]["type"] == "RUN_FINISHED" and done[-1]["outcome"] == {"type": "success"}
        assert one(done, "TOOL_CALL_RESULT")["content"] == "released"
