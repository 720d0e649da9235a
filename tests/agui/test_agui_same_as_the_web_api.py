"""AG-UI and the web API answer the same card the same way.

Found in review: an interrupt carried the sentence stored when the call was proposed, while
the web API's reads describe a waiting card as things are now (the tool's confirmation run
again); and ``respond`` on a tool that asks nothing was accepted by the web API (the call
closes "Not run: the person answered instead…", card "Answered, not run") but refused by an
AG-UI resume. Both now follow one place: :mod:`interlock.engine.current_cards` for the
sentence, :func:`interlock.engine.decision_checks.decision_types` for the decisions.
"""

from __future__ import annotations

from typing import Any

from sqlmodel import select

from interlock.storage import Database, Message
from interlock.storage.users import create_user
from support.live import LiveServer, live_server
from support.notes import change_note, insert_note, stored_notes

from .conftest import agui_run, resolved, run_input, types, user_message

SettingsMaker = Any
ALL = ["approve", "edit", "reject", "respond"]
REFUSED = {"invalid_request", "approver_required", "edit_needs_one_approval", "not_found"}
"""The web API's codes for a decision the call does not take."""


def _say(conversation_id: str, text: str = "go") -> dict[str, Any]:
    return run_input(conversation_id, messages=[user_message(text)])


def _offered(interrupt: dict[str, Any]) -> list[str]:
    return [b["properties"]["type"]["const"] for b in interrupt["responseSchema"]["oneOf"]]


async def _call(server: LiveServer, conversation_id: str, call_id: str) -> dict[str, Any]:
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    return next(c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call_id)


async def test_an_interrupt_describes_the_waiting_card_as_it_is_now(
    make_settings: SettingsMaker,
) -> None:
    """The second RUN_FINISHED of a call needing two approvals names the note as it is then."""
    settings = make_settings()
    db = Database(settings.database_url)
    tokens = {
        name: create_user(db, name, role)[1]
        for name, role in (("boss", "admin"), ("owner", "member"), ("ana", "member"))
    }
    db.dispose()
    auth = {name: {"Authorization": f"Bearer {token}"} for name, token in tokens.items()}
    async with live_server(settings, headers=auth["owner"]) as server:
        rules = await server.client.patch(
            "/api/employees/assistant",
            headers=auth["boss"],
            json={
                "approvers": ["ana"],
                "tool_approvals": {"notes.delete": {"approvals_required": 2}},
            },
        )
        assert rules.status_code == 200, rules.text
        me = str((await server.client.get("/api/me")).json()["id"])
        note = insert_note(server.services.db, me, "buy milk")
        conversation_id = await server.new_conversation()

        events = await agui_run(
            server.client, conversation_id, _say(conversation_id, f"delete note {note}")
        )
        [interrupt] = events[-1]["outcome"]["interrupts"]
        milk = f"Delete note #{note}: “buy milk”. It can be undone afterwards."
        assert interrupt["message"] == milk

        change_note(server.services.db, note, "buy bread")
        events = await agui_run(
            server.client,
            conversation_id,
            run_input(conversation_id, resume=[resolved(interrupt["id"])]),
        )
        assert types(events) == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
        [again] = events[-1]["outcome"]["interrupts"]
        bread = f"Delete note #{note}: “buy bread”. It can be undone afterwards."
        assert again["id"] == interrupt["id"]
        assert again["message"] == bread
        assert again["metadata"]["interlock"]["confirmation"]["summary"] == bread
        # The same sentence as the web API reads now.
        assert (await _call(server, conversation_id, interrupt["id"]))["confirmation"][
            "summary"
        ] == bread


async def test_respond_to_a_tool_that_asks_nothing_is_accepted_as_by_the_web_api(
    make_settings: SettingsMaker,
) -> None:
    async with live_server(make_settings()) as server:
        conversation_id = await server.new_conversation()
        events = await agui_run(
            server.client, conversation_id, _say(conversation_id, "Add a note team lunch")
        )
        [interrupt] = events[-1]["outcome"]["interrupts"]
        assert _offered(interrupt) == ALL
        assert interrupt["message"] == "Add a note: “team lunch”"

        answer = {"type": "respond", "message": "hi"}
        events = await agui_run(
            server.client,
            conversation_id,
            run_input(conversation_id, resume=[resolved(interrupt["id"], answer)]),
        )

        assert events[-1]["type"] == "RUN_FINISHED", types(events)
        assert events[-1]["outcome"] == {"type": "success"}
        await server.idle()
        call = await _call(server, conversation_id, interrupt["id"])
        assert (call["status"], call["decision"]["type"]) == ("succeeded", "respond")
        assert call["started_at"] is None and stored_notes(server.services.db) == []
        with server.services.db.session() as session:
            [tool_message] = session.exec(
                select(Message).where(Message.tool_call_id == interrupt["id"])
            ).all()
        assert tool_message.content == (
            "Not run: the person answered instead of running “Add a note”: hi"
        )


async def test_the_web_api_refuses_exactly_what_an_interrupt_does_not_offer(
    make_settings: SettingsMaker,
) -> None:
    """A plain call, a question and a call needing two approvals: each decision an
    interrupt leaves out is refused by ``POST /api/tool-calls/{id}/decision`` too, and the
    ones it offers pass the web API's checks (one is applied at the end)."""
    async with live_server(make_settings()) as server:
        set_rules = await server.client.patch(  # two people: the owner and an approver
            "/api/employees/assistant",
            json={
                "approvers": ["local"],
                "tool_approvals": {"notes.delete": {"approvals_required": 2}},
            },
        )
        assert set_rules.status_code == 200, set_rules.text
        me = str((await server.client.get("/api/me")).json()["id"])
        note = insert_note(server.services.db, me, "buy milk")
        found: list[tuple[str, dict[str, Any]]] = []
        for said in (
            "Add a note tea",
            "Ask me to choose between tea, coffee and juice",
            f"delete note {note}",
        ):
            conversation_id = await server.new_conversation()
            events = await agui_run(server.client, conversation_id, _say(conversation_id, said))
            [interrupt] = events[-1]["outcome"]["interrupts"]
            found.append((conversation_id, interrupt))
        (_, add), (_, ask), (_, delete) = found
        assert _offered(add) == ALL
        assert _offered(ask) == ["respond", "reject"]
        assert _offered(delete) == ["approve", "reject", "respond"]

        for conversation_id, interrupt in found:
            call = await _call(server, conversation_id, interrupt["id"])
            bodies = {
                "approve": {"type": "approve"},
                "edit": {"type": "edit", "args": call["proposed_args"]},
                "reject": {"type": "reject"},
                "respond": {"type": "respond", "message": "tea"},
            }
            for kind in ALL:
                if kind in _offered(interrupt):
                    continue
                refused = await server.client.post(
                    f"/api/tool-calls/{interrupt['id']}/decision", json=bodies[kind]
                )
                assert refused.json()["error"]["code"] in REFUSED, (kind, refused.text)
            assert (await _call(server, conversation_id, interrupt["id"]))["decision"] is None

        # The web API applies a respond to the call that asks nothing, as AG-UI would.
        answered = await server.client.post(
            f"/api/tool-calls/{add['id']}/decision", json={"type": "respond", "message": "hi"}
        )
        assert answered.status_code == 200, answered.text
        assert answered.json()["decision"]["type"] == "respond"
