"""AG-UI runs with a scripted model: several waiting calls, frontend calls, expired calls,
failed and cancelled runs, each ending the way the protocol says."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from interlock.models import ScriptedChatModel, scripted_message
from interlock.storage import Database
from interlock.storage.users import create_user
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import collect, terminals

from .conftest import agui_run, one, run_input, types, user_message

SettingsMaker = Any


def _say(conversation_id: str, text: str = "go") -> dict[str, Any]:
    return run_input(conversation_id, messages=[user_message(text)])


def _resume(*entries: tuple[str, str, Any]) -> list[dict[str, Any]]:
    return [
        {"interruptId": i, "status": status, **({"payload": p} if p is not None else {})}
        for i, status, p in entries
    ]


async def _call(server: LiveServer, conversation_id: str, call_id: str) -> dict[str, Any]:
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    return next(c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call_id)


async def test_two_waiting_calls_are_two_interrupts_and_a_resume_must_answer_both(
    make_settings: SettingsMaker,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message(
                "Adding both.", ("notes_add", {"text": "tea"}), ("notes_add", {"text": "cake"})
            ),
            "Added tea; left cake out.",
        ]
    )
    async with live_server(make_settings(), model=model) as server:
        conversation_id = await server.new_conversation()
        events = await agui_run(server.client, conversation_id, _say(conversation_id))
        starts = [e for e in events if e["type"] == "TOOL_CALL_START"]
        text_id = one(events, "TEXT_MESSAGE_START")["messageId"]
        assert [s["parentMessageId"] for s in starts] == [text_id, text_id]
        interrupts = events[-1]["outcome"]["interrupts"]
        assert [i["toolCallId"] for i in interrupts] == [s["toolCallId"] for s in starts]
        tea, cake = (i["id"] for i in interrupts)

        partial = await agui_run(
            server.client,
            conversation_id,
            run_input(conversation_id, resume=_resume((tea, "resolved", {"type": "approve"}))),
        )
        assert types(partial) == ["RUN_ERROR"] and partial[0]["code"] == "invalid_resume"
        assert partial[0]["metadata"]["interlock"]["details"]["missing"] == [cake]
        assert (await _call(server, conversation_id, tea))["decision"] is None

        both = _resume((tea, "resolved", {"type": "approve"}), (cake, "cancelled", None))
        events = await agui_run(
            server.client, conversation_id, run_input(conversation_id, resume=both)
        )
        results = {e["toolCallId"]: e["content"] for e in events if e["type"] == "TOOL_CALL_RESULT"}
        assert set(results) == {tea, cake}
        assert "no reason given" in results[cake]
        assert events[-1]["outcome"] == {"type": "success"}
        assert [text for _, text in stored_notes(server.services.db)] == ["tea"]
        assert (await _call(server, conversation_id, cake))["status"] == "rejected"


async def test_a_frontend_call_is_an_interrupt_answered_with_its_result(
    make_settings: SettingsMaker,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message("", ("load_skill", {"name": "browser"})),
            scripted_message("", ("browser_time_zone", {})),
            "You are on Oslo time.",
        ]
    )
    async with live_server(make_settings(max_client_result_bytes=1024), model=model) as server:
        conversation_id = await server.new_conversation()
        events = await agui_run(server.client, conversation_id, _say(conversation_id))
        names = [e["toolCallName"] for e in events if e["type"] == "TOOL_CALL_START"]
        assert names == ["load_skill", "browser.time_zone"]
        assert len([e for e in events if e["type"] == "TOOL_CALL_RESULT"]) == 1  # load_skill ran
        [interrupt] = events[-1]["outcome"]["interrupts"]
        assert interrupt["reason"] == "interlock:client_result"
        assert "expiresAt" not in interrupt

        bad = {"text": "x", "data": {"time_zone": "<b>"}}
        refused = await agui_run(
            server.client,
            conversation_id,
            run_input(conversation_id, resume=_resume((interrupt["id"], "resolved", bad))),
        )
        assert types(refused) == ["RUN_ERROR"] and refused[0]["code"] == "invalid_output"
        huge = {"text": "x" * 2000}
        refused = await agui_run(
            server.client,
            conversation_id,
            run_input(conversation_id, resume=_resume((interrupt["id"], "resolved", huge))),
        )
        assert types(refused) == ["RUN_ERROR"] and refused[0]["code"] == "payload_too_large"

        good = {"text": "Oslo", "data": {"time_zone": "Europe/Oslo"}}
        events = await agui_run(
            server.client,
            conversation_id,
            run_input(conversation_id, resume=_resume((interrupt["id"], "resolved", good))),
        )
        assert one(events, "TOOL_CALL_RESULT")["content"] == "Oslo"
        assert events[-1]["outcome"] == {"type": "success"}
        stored = await _call(server, conversation_id, interrupt["id"])
        assert stored["status"] == "succeeded"
        assert stored["result_data"] == {"time_zone": "Europe/Oslo"}


async def test_an_expired_call_answers_not_interrupted_and_dismissing_it_finishes(
    make_settings: SettingsMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message("Adding.", ("notes_add", {"text": "late"})),
            "Nobody approved it in time.",
        ]
    )
    async with live_server(make_settings(), model=model) as server:
        deadlines = server.services.engine.deadlines
        now = datetime(2030, 6, 1, 12, 0, tzinfo=UTC)
        monkeypatch.setattr(deadlines, "clock", lambda: now)
        conversation_id = await server.new_conversation()
        events = await agui_run(server.client, conversation_id, _say(conversation_id))
        [interrupt] = events[-1]["outcome"]["interrupts"]
        assert interrupt["expiresAt"] == "2030-06-02T12:00:00Z"

        now = datetime(2030, 6, 2, 12, 0, 1, tzinfo=UTC)
        late = await agui_run(
            server.client,
            conversation_id,
            run_input(
                conversation_id, resume=_resume((interrupt["id"], "resolved", {"type": "approve"}))
            ),
        )
        assert types(late) == ["RUN_ERROR"] and late[0]["code"] == "not_interrupted"
        assert late[0]["metadata"]["interlock"]["details"]["status"] == "expired"
        await server.idle()

        dismissed = await agui_run(
            server.client,
            conversation_id,
            run_input(conversation_id, resume=_resume((interrupt["id"], "cancelled", None))),
        )
        assert types(dismissed) == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
        history = dismissed[1]["messages"]
        assert history[-1]["content"] == "Nobody approved it in time."
        assert stored_notes(server.services.db) == []


async def test_a_failed_run_ends_with_run_error_and_its_code(
    make_settings: SettingsMaker,
) -> None:
    async with live_server(make_settings(), model=ScriptedChatModel(responses=[])) as server:
        conversation_id = await server.new_conversation()
        events = await agui_run(server.client, conversation_id, _say(conversation_id))
        log = await collect(server.client, conversation_id, until=terminals(1))
        [failed] = log.of("run.failed")
        assert types(events) == ["RUN_STARTED", "RUN_ERROR"]
        assert events[-1]["code"] == failed["error"]["code"]
        assert events[-1]["message"] == failed["error"]["message"]


async def test_a_cancelled_run_closes_its_text_and_finishes_cancelled(
    make_settings: SettingsMaker,
) -> None:
    # The offline model waits 30 s between tokens: the cancel lands after the first one.
    async with live_server(make_settings(offline_token_delay_s=30)) as server:
        conversation_id = await server.new_conversation()
        events: list[dict[str, Any]] = []
        body = _say(conversation_id, "add a note buy milk")
        async with server.client.stream(
            "POST", f"/api/ag-ui/{conversation_id}", json=body
        ) as response:
            async for line in response.aiter_lines():
                if not line.startswith("data:"):
                    continue
                events.append(json.loads(line[5:]))
                if events[-1]["type"] == "TEXT_MESSAGE_CONTENT":
                    cancel = await server.client.post(
                        f"/api/conversations/{conversation_id}/cancel"
                    )
                    assert cancel.status_code == 200, cancel.text
        assert types(events)[-3:] == ["TEXT_MESSAGE_END", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
        assert events[-1]["outcome"] == {"type": "cancelled"}


async def test_approver_rules_apply_to_resumes_as_to_the_web_api(
    make_settings: SettingsMaker,
) -> None:
    settings = make_settings()
    db = Database(settings.database_url)
    tokens = {
        name: create_user(db, name, role)[1]
        for name, role in (("boss", "admin"), ("owner", "member"), ("ana", "member"))
    }
    db.dispose()
    model = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "x"})), "Done."] * 2
    )
    auth = {name: {"Authorization": f"Bearer {token}"} for name, token in tokens.items()}
    async with live_server(settings, model=model, headers=auth["owner"]) as server:
        rules = await server.client.patch(
            "/api/employees/assistant",
            headers=auth["boss"],
            json={
                "approvers": ["ana"],
                "tool_approvals": {"notes.add": {"approvals_required": 2}},
            },
        )
        assert rules.status_code == 200, rules.text
        conversation_id = await server.new_conversation()
        events = await agui_run(server.client, conversation_id, _say(conversation_id))
        [interrupt] = events[-1]["outcome"]["interrupts"]
        kinds = [b["properties"]["type"]["const"] for b in interrupt["responseSchema"]["oneOf"]]
        assert kinds == ["approve", "reject", "respond"]  # several approvals: no edit
        approve = _resume((interrupt["id"], "resolved", {"type": "approve"}))

        # The owner's approval is one of two: the run stays paused on the same interrupt.
        events = await agui_run(
            server.client, conversation_id, run_input(conversation_id, resume=approve)
        )
        assert types(events) == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
        [again] = events[-1]["outcome"]["interrupts"]
        assert again["id"] == interrupt["id"]
        assert again["metadata"]["interlock"]["approvals"] == ["owner"]
        twice = await agui_run(
            server.client, conversation_id, run_input(conversation_id, resume=approve)
        )
        assert types(twice) == ["RUN_ERROR"] and twice[0]["code"] == "already_approved"

        decided = await server.client.post(
            f"/api/tool-calls/{interrupt['id']}/decision",
            headers=auth["ana"],
            json={"type": "approve"},
        )
        assert decided.status_code == 200, decided.text
        await server.idle()
        assert [text for _, text in stored_notes(server.services.db)] == ["x"]

        # require_approver: the owner may not approve their own call, only reject it.
        rules = await server.client.patch(
            "/api/employees/assistant",
            headers=auth["boss"],
            json={"tool_approvals": {"notes.add": {"require_approver": True}}},
        )
        assert rules.status_code == 200, rules.text
        events = await agui_run(server.client, conversation_id, _say(conversation_id))
        [interrupt] = events[-1]["outcome"]["interrupts"]
        kinds = [b["properties"]["type"]["const"] for b in interrupt["responseSchema"]["oneOf"]]
        assert kinds == ["reject", "respond"]
        assert interrupt["message"] == (
            "Add a note: “x” (an approver must approve it; you can reject it or answer instead)."
        )
        assert interrupt["metadata"]["interlock"]["requireApprover"] is True
        refused = await agui_run(
            server.client,
            conversation_id,
            run_input(
                conversation_id, resume=_resume((interrupt["id"], "resolved", {"type": "approve"}))
            ),
        )
        assert types(refused) == ["RUN_ERROR"] and refused[0]["code"] == "invalid_resume"
        rejected = await agui_run(
            server.client,
            conversation_id,
            run_input(
                conversation_id, resume=_resume((interrupt["id"], "resolved", {"type": "reject"}))
            ),
        )
        assert rejected[-1]["outcome"] == {"type": "success"}
        assert [text for _, text in stored_notes(server.services.db)] == ["x"]
