"""API: tools the browser runs (``execution="frontend"``) and ``POST /api/tool-calls/{id}/result``.

ALLOW pauses the run at once with the call ``awaiting_client``; ASK does after the decision,
with the edited args as ``executed_args``. The posted result is untrusted: owner only, once,
size-capped, checked against ``output_schema``; a bad post writes nothing.
"""

from __future__ import annotations

import asyncio

import httpx
from langchain_core.messages import ToolMessage
from sqlmodel import select

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import Database, Run, RunStatus
from interlock.storage.users import create_user
from support.frontend_tools import call_row, post_result, started_with
from support.live import live_server


async def test_an_allow_frontend_call_pauses_the_run_and_its_result_resumes_it(
    api_settings: Settings,
) -> None:
    async with live_server(api_settings, model=ScriptedChatModel(responses=[])) as server:
        conversation_id, model = await started_with(
            server, scripted_message("Checking.", ("test_clock", {})), "It is Oslo time."
        )
        log = await server.events_until(conversation_id, 1)

        assert log.types[-1] == "run.paused", log.types
        (waiting,) = log.of("tool_call.awaiting_client")
        call = waiting["tool_call"]
        assert (call["status"], call["execution"], call["executed_args"]) == (
            "awaiting_client",
            "frontend",
            {},
        )
        assert call["started_at"] is not None
        assert log.of("run.paused")[0]["pending"] == [call["id"]]
        assert "tool_call.running" not in log.types
        summary = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        assert (summary["status"], summary["pending"]) == ("paused", 1)
        approvals = (await server.client.get("/api/approvals")).json()
        assert [a["tool_call"]["id"] for a in approvals] == [call["id"]]
        pending = (await server.client.get(f"/api/conversations/{conversation_id}/pending")).json()
        assert [p["id"] for p in pending] == [call["id"]]

        posted = await post_result(
            server,
            call["id"],
            {"text": "The time zone is Europe/Oslo.", "data": {"time_zone": "Europe/Oslo"}},
        )
        assert posted.status_code == 200, posted.text
        body = posted.json()
        assert (body["status"], body["result_text"], body["result_data"]) == (
            "succeeded",
            "The time zone is Europe/Oslo.",
            {"time_zone": "Europe/Oslo"},
        )
        log = await server.events_until(conversation_id, 2)
        after = log.types[log.types.index("run.paused") + 1 :]
        assert after[:2] == ["tool_call.completed", "run.started"], after
        assert log.types[-1] == "run.completed", log.types
        (seen,) = [m for m in model.received[1] if isinstance(m, ToolMessage)]
        assert seen.content == "The time zone is Europe/Oslo."
        assert (await server.client.get("/api/approvals")).json() == []


async def test_an_ask_frontend_call_runs_with_the_edited_args(api_settings: Settings) -> None:
    async with live_server(api_settings, model=ScriptedChatModel(responses=[])) as server:
        conversation_id, _model = await started_with(
            server, scripted_message("", ("test_pick", {"purpose": "quote it"})), "Thanks."
        )
        log = await server.events_until(conversation_id, 1)
        (interrupted,) = log.of("tool_call.interrupted")
        call_id = interrupted["tool_call"]["id"]
        assert interrupted["tool_call"]["confirmation"]["action_label"] == "Share"
        early = await post_result(server, call_id, {"text": "too early", "data": {"text": "x"}})
        assert early.status_code == 409
        assert early.json()["error"] == {
            "code": "not_awaiting_result",
            "message": "This tool call is not waiting for a result from the browser.",
            "details": {"status": "interrupted"},
        }

        decided = await server.decide(call_id, type="edit", args={"purpose": "summarise it"})
        assert decided.status_code == 200, decided.text
        log = await server.events_until(conversation_id, 2)
        (waiting,) = log.of("tool_call.awaiting_client")
        assert waiting["tool_call"]["executed_args"] == {"purpose": "summarise it"}
        assert waiting["tool_call"]["proposed_args"] == {"purpose": "quote it"}
        assert log.types[-1] == "run.paused"

        posted = await post_result(server, call_id, {"text": "hello", "data": {"text": "hello"}})
        assert posted.status_code == 200, posted.text
        log = await server.events_until(conversation_id, 3)
        assert log.types[-1] == "run.completed"


async def test_bad_results_are_refused_and_nothing_is_written(api_settings: Settings) -> None:
    settings = api_settings.model_copy(update={"max_client_result_bytes": 2048})
    database = Database(api_settings.database_url)
    try:
        _bob, bob_token = create_user(database, "bob")
        _ann, ann_token = create_user(database, "ann")
    finally:
        database.dispose()
    ann = {"Authorization": f"Bearer {ann_token}"}
    bob = {"Authorization": f"Bearer {bob_token}"}
    model = ScriptedChatModel(responses=[])
    async with live_server(settings, model=model, headers=ann) as server:
        conversation_id, _ = await started_with(
            server, scripted_message("", ("test_clock", {}), ("notes_add", {"text": "x"}))
        )
        log = await server.events_until(conversation_id, 1)
        clock = log.of("tool_call.awaiting_client")[0]["tool_call"]["id"]
        note = log.of("tool_call.interrupted")[0]["tool_call"]["id"]
        seq = (await server.client.get(f"/api/conversations/{conversation_id}")).json()[
            "last_event_seq"
        ]
        good = {"text": "Oslo", "data": {"time_zone": "Europe/Oslo"}}

        refusals: list[tuple[httpx.Response, int, str]] = [
            (await post_result(server, note, good), 409, "not_frontend"),
            (await post_result(server, clock, good, headers=bob), 404, "not_found"),
            (await post_result(server, "call_nope", good), 404, "not_found"),
            (await post_result(server, clock, {"text": "x" * 4000}), 413, "payload_too_large"),
            (await post_result(server, clock, {"text": "Oslo", "data": {"time_zone": 5}}), 422, "invalid_output"),
            (await post_result(server, clock, {"text": "Oslo", "data": {"zone": "x"}}), 422, "invalid_output"),
            (await post_result(server, clock, {"text": "Oslo"}), 422, "invalid_output"),
            (await post_result(server, clock, {"error": {"code": "oops", "message": "x"}}), 422, "invalid_request"),
            (await post_result(server, clock, {"text": "a", "error": {"code": "failed", "message": "x"}}), 422, "invalid_request"),
            (await post_result(server, clock, {}), 422, "invalid_request"),
            (await post_result(server, clock, {"text": "a\u0000"}), 422, "invalid_request"),
            (await post_result(server, clock, {"text": "a", "extra": 1}), 422, "invalid_request"),
        ]  # fmt: skip
        for response, status, code in refusals:
            assert (response.status_code, response.json()["error"]["code"]) == (status, code), (
                response.text
            )
        invalid = refusals[4][0].json()["error"]
        assert invalid["details"]["errors"] == [
            {"path": ["time_zone"], "message": "Must be text.", "rule": "type"}
        ]
        assert call_row(server, clock) == ("awaiting_client", 0)
        assert call_row(server, note) == ("interrupted", 0)
        after = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        assert after["last_event_seq"] == seq

        ok = await post_result(server, clock, good)
        assert ok.status_code == 200, ok.text
        twice = await post_result(server, clock, good)
        assert twice.status_code == 409
        assert twice.json()["error"]["code"] == "not_awaiting_result"
        assert twice.json()["error"]["details"] == {"status": "succeeded"}
        assert call_row(server, clock) == ("succeeded", 1)


async def test_two_racing_results_exactly_one_wins(api_settings: Settings) -> None:
    async with live_server(api_settings, model=ScriptedChatModel(responses=[])) as server:
        conversation_id, model = await started_with(
            server, scripted_message("", ("test_clock", {})), "Done."
        )
        log = await server.events_until(conversation_id, 1)
        call_id = log.of("tool_call.awaiting_client")[0]["tool_call"]["id"]

        first, second = await asyncio.gather(
            post_result(server, call_id, {"text": "A", "data": {"time_zone": "Europe/Oslo"}}),
            post_result(server, call_id, {"text": "B", "data": {"time_zone": "Asia/Tokyo"}}),
        )

        assert sorted([first.status_code, second.status_code]) == [200, 409]
        winner = first if first.status_code == 200 else second
        status, messages = call_row(server, call_id)
        assert (status, messages) == ("succeeded", 1)
        log = await server.events_until(conversation_id, 2)
        assert log.types.count("tool_call.completed") == 1
        assert (
            log.of("tool_call.completed")[0]["tool_call"]["result_text"]
            == (winner.json()["result_text"])
        )
        assert model.calls_made == 2


async def test_an_error_result_fails_the_call_and_the_run_goes_on(api_settings: Settings) -> None:
    async with live_server(api_settings, model=ScriptedChatModel(responses=[])) as server:
        conversation_id, model = await started_with(
            server, scripted_message("", ("test_clock", {})), "Could not read it."
        )
        log = await server.events_until(conversation_id, 1)
        call_id = log.of("tool_call.awaiting_client")[0]["tool_call"]["id"]

        posted = await post_result(
            server, call_id, {"error": {"code": "permission_denied", "message": "Blocked."}}
        )

        assert posted.status_code == 200, posted.text
        assert posted.json()["status"] == "failed"
        assert posted.json()["error"] == {"code": "permission_denied", "message": "Blocked."}
        log = await server.events_until(conversation_id, 2)
        assert log.types[-1] == "run.completed"
        (seen,) = [m for m in model.received[1] if isinstance(m, ToolMessage)]
        assert seen.content == "Error [permission_denied]: Blocked." and seen.status == "error"


async def test_cancel_and_a_new_message_close_waiting_frontend_calls(
    api_settings: Settings,
) -> None:
    async with live_server(api_settings, model=ScriptedChatModel(responses=[])) as server:
        conversation_id, _ = await started_with(server, scripted_message("", ("test_clock", {})))
        log = await server.events_until(conversation_id, 1)
        call_id = log.of("tool_call.awaiting_client")[0]["tool_call"]["id"]

        cancelled = await server.client.post(f"/api/conversations/{conversation_id}/cancel")
        assert cancelled.status_code == 200
        assert call_row(server, call_id) == ("cancelled", 1)
        late = await post_result(server, call_id, {"text": "x", "data": {"time_zone": "UTC"}})
        assert late.status_code == 409

        server.services.engine.model = ScriptedChatModel(
            responses=[scripted_message("", ("test_clock", {})), "Fine."]
        )
        log = await server.turn(conversation_id, "again")
        second = log.of("tool_call.awaiting_client")[-1]["tool_call"]["id"]
        await server.turn(conversation_id, "never mind")
        assert call_row(server, second) == ("cancelled", 1)


async def test_a_restart_keeps_frontend_calls_waiting(api_settings: Settings) -> None:
    async with live_server(api_settings, model=ScriptedChatModel(responses=[])) as server:
        conversation_id, _ = await started_with(
            server, scripted_message("", ("test_clock", {})), "After the restart."
        )
        log = await server.events_until(conversation_id, 1)
        call_id = log.of("tool_call.awaiting_client")[0]["tool_call"]["id"]
        # As if the server stopped while the run was still active.
        with server.services.db.session() as session:
            run = session.exec(select(Run).where(Run.conversation_id == conversation_id)).one()
            run.status = RunStatus.running
            run.owner_id = "a-worker-that-stopped"
            session.add(run)
            from interlock.storage import Conversation

            conversation = session.get(Conversation, conversation_id)
            assert conversation is not None
            conversation.active_run_id = run.id
            session.add(conversation)
            session.commit()

        await server.services.engine.recover()

        assert call_row(server, call_id) == ("awaiting_client", 0)
        posted = await post_result(server, call_id, {"text": "UTC", "data": {"time_zone": "UTC"}})
        assert posted.status_code == 200, posted.text
        log = await server.events_until(conversation_id, 3)
        assert log.types[-1] == "run.completed", log.types
