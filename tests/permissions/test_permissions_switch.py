"""The "AI actions" switch per person and employee, and the DENY level wherever declared.

Each live test runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlmodel import select

from interlock.employees import load_builtin
from interlock.engine.turn import ACTIONS_OFF_NOTE, plan_turn
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.skills import load_catalog
from interlock.storage import ActionSwitch, AuditRecord, Conversation
from interlock.storage.models import as_utc
from interlock.tools import Permission, ToolRegistry
from support.live import LiveServer, live_server

from .conftest import decide_and_wait, notes, only, stored_call, turn, until_terminal


async def _switch(server: LiveServer, on: bool, employee: str = "assistant") -> dict[str, object]:
    response = await server.client.put(f"/api/actions/{employee}", json={"on": on})
    assert response.status_code == 200, response.text
    return dict(response.json())


def _row(server: LiveServer, employee: str = "assistant") -> ActionSwitch:
    with server.services.db.session() as session:
        (row,) = session.exec(select(ActionSwitch).where(ActionSwitch.employee == employee)).all()
        return row


def _lapse(server: LiveServer) -> None:
    """Move the switch's end into the past (stands in for the days going by)."""
    with server.services.db.session() as session:
        (row,) = session.exec(
            select(ActionSwitch).where(ActionSwitch.employee == "assistant")
        ).all()
        row.on_until = datetime.now(UTC) - timedelta(seconds=1)
        session.add(row)
        session.commit()


async def test_the_first_message_starts_a_bounded_period(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(actions_grant_days=3)
    async with live_server(settings, model=ScriptedChatModel(responses=["Hi."])) as server:
        conversation_id = await server.new_conversation()
        await turn(server, conversation_id, "hello")
        row = _row(server)
        assert row.changed_by == "default" and row.on_until is not None
        left = as_utc(row.on_until) - datetime.now(UTC)
        assert timedelta(days=3) - left < timedelta(minutes=1)
        listed = {a["employee"]: a for a in (await server.client.get("/api/actions")).json()}
        assert listed["assistant"]["on"] is True and listed["assistant"]["grant_days"] == 3
        assert listed["assistant"]["changed_by"] == "default"


async def test_off_denies_write_tools_and_on_gives_them_back(perm_settings: Settings) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message("Adding.", ("notes_add", {"text": "milk"})),
            "AI actions are off.",
            scripted_message("Adding.", ("notes_add", {"text": "milk"})),
        ]
    )
    async with live_server(perm_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        state = await _switch(server, False)
        assert state["on"] is False and state["on_until"] is None
        assert state["changed_by"] == "person"

        log = await turn(server, conversation_id, "add milk")
        offered = set(model.bound_tool_names_seen[0])
        assert "notes_add" not in offered and "notes_delete" not in offered
        assert "notes_list" in offered
        assert ACTIONS_OFF_NOTE in str(model.received[0][0].content)
        call = only(log, "tool_call.completed")
        assert call["status"] == "failed" and call["error"]["code"] == "permission_denied"
        assert "AI actions are turned off" in call["error"]["message"]
        assert notes(server) == []

        state = await _switch(server, True)
        assert state["on"] is True
        until = datetime.fromisoformat(str(state["on_until"]))
        assert timedelta(days=7) - (until - datetime.now(UTC)) < timedelta(minutes=1)
        log = await turn(server, conversation_id, "add milk")
        assert only(log, "tool_call.interrupted")["name"] == "notes.add"
        assert "notes_add" in set(model.bound_tool_names_seen[-1])


async def test_off_cancels_waiting_write_calls_with_a_reason_and_resumes(
    perm_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message("Both.", ("notes_add", {"text": "milk"}), ("notes_list", {})),
            "The add was cancelled.",
        ]
    )
    async with live_server(perm_settings, model=model) as server:
        response = await server.client.patch(
            "/api/employees/assistant", json={"tool_overrides": {"notes.list": "ASK"}}
        )
        assert response.status_code == 200, response.text
        conversation_id = await server.new_conversation()
        log = await turn(server, conversation_id, "add milk and list")
        add, listing = (e["tool_call"] for e in log.of("tool_call.interrupted"))
        seen = (await server.client.get(f"/api/conversations/{conversation_id}")).json()

        state = await _switch(server, False)
        assert state["cancelled_calls"] == [add["id"]]  # the read call keeps waiting
        cancelled = stored_call(server, add["id"])
        assert cancelled.status == "cancelled" and cancelled.error_code == "cancelled"
        # Its owner did it and reads it on the card; the audit page, read by admins too, says
        # it beside who decided; the model keeps its own words.
        assert cancelled.error_message == "You turned off AI actions for Ada."
        assert stored_call(server, listing["id"]).status == "interrupted"
        me = (await server.client.get("/api/me")).json()
        with server.services.db.session() as session:
            audit = [
                (r.tool_call_id, r.outcome, r.decider, r.channel, r.reason)
                for r in session.exec(select(AuditRecord)).all()
            ]
        assert audit == [
            (add["id"], "cancelled", me["id"], "api", "AI actions for Ada were turned off.")
        ]

        _answer, resumed = await decide_and_wait(
            server, conversation_id, listing["id"], type="approve"
        )
        assert resumed.types[-1] == "run.completed", resumed.types
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        tool_texts = [m["content"] for m in detail["messages"] if m["role"] == "tool"]
        assert tool_texts[0] == "Cancelled: Ada's AI actions were turned off by the person."
        assert detail["last_event_seq"] > seen["last_event_seq"]
        assert notes(server) == []


async def test_off_alone_resumes_a_run_left_with_nothing_to_wait_for(
    perm_settings: Settings,
) -> None:
    model = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "milk"})), "Understood."]
    )
    async with live_server(perm_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        log = await turn(server, conversation_id, "add milk")
        call = only(log, "tool_call.interrupted")
        seen = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        await _switch(server, False)
        resumed = await until_terminal(server, conversation_id, seen["last_event_seq"])
        await server.idle()
        assert only(resumed, "tool_call.completed")["status"] == "cancelled"
        assert resumed.types[-1] == "run.completed", resumed.types
        assert stored_call(server, call["id"]).status == "cancelled"


async def test_the_switch_lapsing(perm_settings: Settings) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message("Adding.", ("notes_add", {"text": "milk"})),
            scripted_message("Adding.", ("notes_add", {"text": "bread"})),
            "AI actions are off.",
        ]
    )
    async with live_server(perm_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        log = await turn(server, conversation_id, "add milk")
        waiting = only(log, "tool_call.interrupted")
        _lapse(server)

        response = await server.decide(waiting["id"], type="approve")
        assert response.status_code == 409, response.text
        assert response.json()["error"]["code"] == "actions_off"
        assert stored_call(server, waiting["id"]).status == "interrupted"
        (state,) = [
            a
            for a in (await server.client.get("/api/actions")).json()
            if a["employee"] == "assistant"
        ]
        assert state["on"] is False and state["lapsed_at"] is not None

        log = await turn(server, conversation_id, "add bread")  # not extended by use
        first, second = (e["tool_call"] for e in log.of("tool_call.completed"))
        assert first["id"] == waiting["id"] and first["status"] == "cancelled"
        assert second["error"]["code"] == "permission_denied"
        assert _row(server).on_until is not None
        assert as_utc(_row(server).on_until) < datetime.now(UTC)
        assert notes(server) == []


async def test_switch_of_an_unknown_employee_is_404(perm_settings: Settings) -> None:
    async with live_server(perm_settings) as server:
        response = await server.client.put("/api/actions/nobody", json={"on": False})
        assert response.status_code == 404
        response = await server.client.put("/api/actions/assistant", json={"on": "maybe"})
        assert response.status_code == 422


def test_deny_is_a_level_in_a_skill_front_matter_and_declarative_tools(
    tmp_path: Path, perm_settings: Settings
) -> None:
    folder = tmp_path / "shop"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        "---\nname: shop\ndescription: Shop things.\npermissions:\n  shop.buy: DENY\n"
        "tools:\n"
        "  - name: shop.buy\n    kind: text_template\n    title: Buy\n    description: Buy.\n"
        "    permission: ALLOW\n    input_schema: {type: object, properties: {}}\n"
        "    template: bought\n"
        "  - name: shop.peek\n    kind: text_template\n    title: Peek\n    description: Peek.\n"
        "    permission: DENY\n    input_schema: {type: object, properties: {}}\n"
        "    template: peeked\n"
        "---\nBuy things.\n",
        encoding="utf-8",
    )
    registry = ToolRegistry()
    catalog = load_catalog(registry, [perm_settings.builtin_skills_dir, tmp_path], perm_settings)
    assert catalog.skills["shop"].status == "loaded", catalog.skills["shop"]
    buy, peek = registry.get("shop.buy"), registry.get("shop.peek")
    assert buy is not None and peek is not None
    assert buy.permission == Permission.DENY and peek.permission == Permission.DENY
    employee = load_builtin()["assistant"].model_copy(
        update={"pinned_skills": ["shop"], "available_skills": ["*"]}
    )
    plan = plan_turn(Conversation(owner_id="u", employee="assistant"), employee, catalog, registry)
    assert {"shop.buy", "shop.peek"} <= plan.denied
    assert not {"shop.buy", "shop.peek"} & {t.name for t in plan.offered}


async def test_a_deleted_employees_waiting_call_is_cancelled_not_run_by_a_stand_in(
    perm_settings: Settings,
) -> None:
    """Deleting the employee closes its waiting call: approving it afterwards runs nothing
    (it ran in a step of the default employee, Ada, standing in, under Ada's switch)."""
    model = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "milk"})), "Off."]
    )
    async with live_server(perm_settings, model=model) as server:
        chef = {"slug": "chef", "name": "Chef", "system_prompt": "You are Chef."}
        created = await server.client.post(
            "/api/employees", json={**chef, "pinned_skills": ["notes"]}
        )
        assert created.status_code == 201, created.text
        started = await server.client.post("/api/conversations", json={"employee": "chef"})
        assert started.status_code == 201, started.text
        conversation_id = started.json()["id"]
        log = await turn(server, conversation_id, "add milk")
        call = only(log, "tool_call.interrupted")
        assert (await _switch(server, True, "chef"))["on"] is True
        assert (await server.client.delete("/api/employees/chef")).status_code == 204

        refused = await server.decide(call["id"], type="approve")
        assert refused.status_code == 409, refused.text
        assert refused.json()["error"]["code"] == "not_interrupted"
        await server.idle()
        assert stored_call(server, call["id"]).status == "cancelled"
        assert notes(server) == []


async def test_the_offline_model_says_ai_actions_are_off_naming_the_tool_by_title(
    perm_settings: Settings,
) -> None:
    """The built-in model once said "I would use `notes.add` for that, but it is not
    available in this conversation": the wrong reason, in a code name."""
    async with live_server(perm_settings) as server:
        assert server.services.settings.is_offline_model
        conversation_id = await server.new_conversation()
        await _switch(server, False)

        for request in ("add a note buy milk", 'use notes.add with {"text": "milk"}'):
            log = await turn(server, conversation_id, request)

            reply = log.of("message.completed")[-1]["message"]["content"]
            assert reply.startswith("I would use “Add a note” for that, but AI actions are off")
            assert "`" not in reply and "not available" not in reply
        assert notes(server) == []
