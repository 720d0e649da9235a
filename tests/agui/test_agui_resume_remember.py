"""An AG-UI resume takes what ``POST /api/tool-calls/{id}/decision`` takes, ``remember`` too.

Tryout: a resume ``{"type": "approve", "remember": {"scope": "employee"}}`` ended in
``RUN_ERROR invalid_resume`` "The approve decision for “Add a note” is not valid.", though the
README says the payload is a decision as for the decision endpoint, which accepts
``remember``. Both now read the payload with one model and one set of checks, so a
``remember`` the endpoint refuses is refused with its ``cannot_remember`` and its reason.
"""

from __future__ import annotations

from typing import Any

from support.live import LiveServer, live_server
from support.notes import insert_note, stored_notes

from .conftest import agui_run, resolved, run_input, types, user_message

SettingsMaker = Any
REMEMBER = {"scope": "employee"}


async def _interrupt(server: LiveServer, said: str) -> tuple[str, dict[str, Any]]:
    conversation_id = await server.new_conversation()
    events = await agui_run(
        server.client, conversation_id, run_input(conversation_id, messages=[user_message(said)])
    )
    [interrupt] = events[-1]["outcome"]["interrupts"]
    return conversation_id, interrupt


async def _resume(
    server: LiveServer, conversation_id: str, interrupt_id: str, payload: dict[str, Any]
) -> list[dict[str, Any]]:
    return await agui_run(
        server.client,
        conversation_id,
        run_input(conversation_id, resume=[resolved(interrupt_id, payload)]),
    )


async def test_a_resume_approving_with_remember_runs_the_call_and_makes_the_grant(
    make_settings: SettingsMaker,
) -> None:
    async with live_server(make_settings()) as server:
        conversation_id, interrupt = await _interrupt(server, "add a note approver view")
        approve = next(
            b
            for b in interrupt["responseSchema"]["oneOf"]
            if b["properties"]["type"]["const"] == "approve"
        )
        assert approve["properties"]["remember"]["required"] == ["scope"]

        events = await _resume(
            server,
            conversation_id,
            interrupt["id"],
            {"type": "approve", "remember": REMEMBER},
        )

        assert events[-1]["type"] == "RUN_FINISHED", events
        assert events[-1]["outcome"] == {"type": "success"}
        await server.idle()
        assert stored_notes(server.services.db) == [(1, "approver view")]
        [grant] = (await server.client.get("/api/grants")).json()
        assert (grant["tool"], grant["scope"], grant["source_call_id"]) == (
            "notes.add",
            "employee",
            interrupt["id"],
        )


async def test_a_resume_is_refused_remember_with_the_decision_endpoints_error(
    make_settings: SettingsMaker,
) -> None:
    """A remembered reject, and a remembered approval of a call needing two approvals: the
    same ``cannot_remember`` and words from both doors, and nothing decided."""
    async with live_server(make_settings()) as server:
        rules = await server.client.patch(
            "/api/employees/assistant",
            json={
                "approvers": ["local"],
                "tool_approvals": {"notes.delete": {"approvals_required": 2}},
            },
        )
        assert rules.status_code == 200, rules.text
        me = str((await server.client.get("/api/me")).json()["id"])
        note = insert_note(server.services.db, me, "buy milk")
        add = await _interrupt(server, "add a note tea")
        delete = await _interrupt(server, f"delete note {note}")

        for (conversation_id, interrupt), payload, reason in (
            (add, {"type": "reject", "remember": REMEMBER}, "never remembered"),
            (delete, {"type": "approve", "remember": REMEMBER}, "needs 2 people's approvals"),
        ):
            events = await _resume(server, conversation_id, interrupt["id"], payload)
            web = await server.client.post(
                f"/api/tool-calls/{interrupt['id']}/decision", json=payload
            )

            assert types(events) == ["RUN_ERROR"], events
            assert events[0]["code"] == web.json()["error"]["code"] == "cannot_remember"
            assert events[0]["message"] == web.json()["error"]["message"]
            assert reason in events[0]["message"]
            detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
            [call] = [c for m in detail["messages"] for c in m["tool_calls"]]
            assert call["decision"] is None and call["approvals"] == []
