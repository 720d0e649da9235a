""" "Don't ask again": grants made from an approval, used, revoked, expired and voided.

Each test runs on SQLite and PostgreSQL against a live server with a scripted model.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage.models import as_utc
from interlock.storage.users import create_user
from support.live import LiveServer, live_server

from .conftest import decide_and_wait, notes, only, set_grant_expiry, stored_call, turn


def _add(text: str) -> object:
    return scripted_message("Adding.", ("notes_add", {"text": text}))


async def _approve_remembering(
    server: LiveServer, conversation_id: str, text: str, **remember: object
) -> dict[str, object]:
    """Ask for ``text`` to be added, approve it with ``remember``; return the grant listed."""
    log = await turn(server, conversation_id, f"add {text}")
    call = only(log, "tool_call.interrupted")
    answer, resumed = await decide_and_wait(
        server, conversation_id, call["id"], type="approve", remember=remember
    )
    assert answer["grant_id"] is None  # this call was decided by the person
    assert resumed.types[-1] == "run.completed", resumed.types
    grants = (await server.client.get("/api/grants")).json()
    assert len(grants) == 1, grants
    return dict(grants[0])


async def test_grant_used_then_revoked(perm_settings: Settings) -> None:
    model = ScriptedChatModel(
        responses=[_add("one"), "Done.", _add("two"), "Done.", _add("three"), "Asked."]
    )
    async with live_server(perm_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        grant = await _approve_remembering(server, conversation_id, "one", scope="conversation")
        assert grant["tool"] == "notes.add" and grant["tool_title"]
        assert grant["scope"] == "conversation" and grant["conversation_id"] == conversation_id
        assert grant["args"] is None and grant["uses"] == 0 and grant["void_reason"] is None
        created, expires = (
            datetime.fromisoformat(str(grant["created_at"])),
            datetime.fromisoformat(str(grant["expires_at"])),
        )
        assert expires - created == timedelta(days=7)  # the default

        log = await turn(server, conversation_id, "add two")
        assert log.of("tool_call.interrupted") == [], log.types
        assert log.types[-1] == "run.completed"
        call = only(log, "tool_call.completed")
        assert call["status"] == "succeeded" and call["grant_id"] == grant["id"]
        assert only(log, "tool_call.created")["grant_id"] == grant["id"]
        assert stored_call(server, call["id"]).grant_id == grant["id"]
        assert notes(server) == ["one", "two"]
        (listed,) = (await server.client.get("/api/grants")).json()
        assert listed["uses"] == 1 and listed["last_used_at"] is not None

        assert (await server.client.delete(f"/api/grants/{grant['id']}")).status_code == 204
        assert (await server.client.get("/api/grants")).json() == []
        log = await turn(server, conversation_id, "add three")
        call = only(log, "tool_call.interrupted")
        assert call["grant_id"] is None and log.types[-1] == "run.paused"
        assert notes(server) == ["one", "two"]


async def test_scopes_and_exact_args(perm_settings: Settings) -> None:
    model = ScriptedChatModel(
        responses=[
            _add("milk"),
            "Done.",
            _add("milk"),  # same args, other conversation: covered (employee scope)
            "Done.",
            _add("bread"),  # other args: asks
        ]
    )
    async with live_server(perm_settings, model=model) as server:
        first = await server.new_conversation()
        grant = await _approve_remembering(
            server, first, "milk", scope="employee", exact_args=True, days=2
        )
        assert grant["scope"] == "employee" and grant["conversation_id"] is None
        assert grant["args"] == {"text": "milk"}
        expires = datetime.fromisoformat(str(grant["expires_at"]))
        assert timedelta(days=2) - (expires - datetime.now(UTC)) < timedelta(minutes=1)

        second = await server.new_conversation()
        log = await turn(server, second, "add milk")
        assert only(log, "tool_call.completed")["grant_id"] == grant["id"]
        log = await turn(server, second, "add bread")
        assert only(log, "tool_call.interrupted")["proposed_args"] == {"text": "bread"}
        assert notes(server) == ["milk", "milk"]


async def test_conversation_scope_does_not_reach_other_conversations(
    perm_settings: Settings,
) -> None:
    model = ScriptedChatModel(responses=[_add("a"), "Done.", _add("b")])
    async with live_server(perm_settings, model=model) as server:
        first = await server.new_conversation()
        await _approve_remembering(server, first, "a", scope="conversation")
        second = await server.new_conversation()
        log = await turn(server, second, "add b")
        assert only(log, "tool_call.interrupted")["grant_id"] is None

        # Deleting the conversation takes its grants with it.
        assert len((await server.client.get("/api/grants")).json()) == 1
        assert (await server.client.delete(f"/api/conversations/{first}")).status_code == 204
        assert (await server.client.get("/api/grants")).json() == []


async def test_an_edit_remembers_the_args_that_ran(perm_settings: Settings) -> None:
    model = ScriptedChatModel(responses=[_add("mlik"), "Done.", _add("milk"), "Done."])
    async with live_server(perm_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        log = await turn(server, conversation_id, "add mlik")
        call = only(log, "tool_call.interrupted")
        await decide_and_wait(
            server,
            conversation_id,
            call["id"],
            type="edit",
            args={"text": "milk"},
            remember={"scope": "conversation", "exact_args": True},
        )
        (grant,) = (await server.client.get("/api/grants")).json()
        assert grant["args"] == {"text": "milk"} and grant["source_call_id"] == call["id"]
        log = await turn(server, conversation_id, "add milk")
        assert only(log, "tool_call.completed")["grant_id"] == grant["id"]


async def test_grant_expiry(perm_settings: Settings) -> None:
    model = ScriptedChatModel(responses=[_add("a"), "Done.", _add("b")])
    async with live_server(perm_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        grant = await _approve_remembering(server, conversation_id, "a", scope="conversation")
        set_grant_expiry(server, str(grant["id"]), datetime.now(UTC) - timedelta(seconds=1))
        assert (await server.client.get("/api/grants")).json() == []
        log = await turn(server, conversation_id, "add b")
        assert only(log, "tool_call.interrupted")["grant_id"] is None


async def test_a_schema_change_voids_the_grant(perm_settings: Settings) -> None:
    model = ScriptedChatModel(responses=[_add("a"), "Done.", _add("b")])
    async with live_server(perm_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await _approve_remembering(server, conversation_id, "a", scope="conversation")
        tool = server.services.registry.get("notes.add")
        assert tool is not None
        tool.input_schema = {**tool.input_schema, "description": "A note, now described."}
        (listed,) = (await server.client.get("/api/grants")).json()
        assert (
            listed["void_reason"] == "The tool changed since this was granted; it will ask again."
        )
        log = await turn(server, conversation_id, "add b")
        assert only(log, "tool_call.interrupted")["grant_id"] is None


async def test_a_grant_never_widens_a_deny(perm_settings: Settings) -> None:
    model = ScriptedChatModel(responses=[_add("a"), "Done.", _add("b"), "Sorry."])
    async with live_server(perm_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await _approve_remembering(server, conversation_id, "a", scope="employee")
        response = await server.client.patch(
            "/api/employees/assistant", json={"tool_overrides": {"notes.add": "DENY"}}
        )
        assert response.status_code == 200, response.text
        (listed,) = (await server.client.get("/api/grants")).json()
        assert listed["void_reason"] == "The tool is not allowed for this employee any more."
        log = await turn(server, conversation_id, "add b")
        call = only(log, "tool_call.completed")
        assert call["status"] == "failed" and call["error"]["code"] == "permission_denied"
        assert call["grant_id"] is None
        assert notes(server) == ["a"]
        (listed,) = (await server.client.get("/api/grants")).json()
        assert listed["uses"] == 0


async def test_rejects_are_never_remembered(perm_settings: Settings) -> None:
    model = ScriptedChatModel(responses=[_add("a"), "Fine."])
    async with live_server(perm_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        log = await turn(server, conversation_id, "add a")
        call = only(log, "tool_call.interrupted")
        for body in (
            {"type": "reject", "message": "no", "remember": {"scope": "conversation"}},
            {"type": "respond", "message": "no", "remember": {"scope": "employee"}},
        ):
            response = await server.decide(call["id"], **body)
            assert response.status_code == 422, response.text
            assert response.json()["error"]["code"] == "cannot_remember"
        assert (await server.client.get("/api/grants")).json() == []
        pending = (await server.client.get(f"/api/conversations/{conversation_id}/pending")).json()
        assert [p["id"] for p in pending] == [call["id"]]  # still waiting, nothing recorded
        _answer, log = await decide_and_wait(
            server, conversation_id, call["id"], type="reject", message="no"
        )
        assert (await server.client.get("/api/grants")).json() == []


async def test_bad_remember_leaves_nothing_half_written(perm_settings: Settings) -> None:
    model = ScriptedChatModel(responses=[_add("a"), "Done."])
    async with live_server(perm_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        log = await turn(server, conversation_id, "add a")
        call = only(log, "tool_call.interrupted")
        for remember in ({"scope": "conversation", "days": 31}, {"scope": "everywhere"}):
            response = await server.decide(call["id"], type="approve", remember=remember)
            assert response.status_code == 422, response.text
        assert stored_call(server, call["id"]).status == "interrupted"
        assert (await server.client.get("/api/grants")).json() == []


async def test_grants_api_refuses_bad_input(perm_settings: Settings) -> None:
    async with live_server(perm_settings) as server:
        conversation_id = await server.new_conversation()
        in_a_day = (datetime.now(UTC) + timedelta(days=1)).isoformat()

        async def post(**body: object) -> tuple[int, str]:
            response = await server.client.post("/api/grants", json=body)
            code = response.json().get("error", {}).get("code", "") if response.content else ""
            return response.status_code, code

        base = {"scope": "conversation", "conversation_id": conversation_id}
        assert await post(tool="notes.nope", **base) == (422, "unknown_tool")
        past = (datetime.now(UTC) - timedelta(minutes=1)).isoformat()
        assert await post(tool="notes.add", expires_at=past, **base) == (422, "invalid_expiry")
        far = (datetime.now(UTC) + timedelta(days=31)).isoformat()
        assert await post(tool="notes.add", expires_at=far, **base) == (422, "invalid_expiry")
        assert (await post(tool="notes.add", days=0, **base))[0] == 422
        assert (await post(tool="notes.add", days=5, expires_at=in_a_day, **base))[0] == 422
        assert await post(tool="notes.list", **base) == (422, "cannot_remember")  # ALLOW
        assert await post(tool="notes.add", args={"txt": 1}, **base) == (422, "invalid_args")
        # An unknown employee in a body: 422 unknown_reference, as everywhere in the API.
        assert await post(tool="notes.add", scope="employee", employee="nobody") == (
            422,
            "unknown_reference",
        )
        assert await post(
            tool="notes.add", scope="conversation", conversation_id="conv_unknown"
        ) == (404, "not_found")
        assert (await server.client.get("/api/grants")).json() == []

        status, _ = await post(tool="notes.add", expires_at=in_a_day, **base)
        assert status == 201
        (grant,) = (await server.client.get("/api/grants")).json()
        expires = as_utc(datetime.fromisoformat(grant["expires_at"]))
        assert expires == as_utc(datetime.fromisoformat(in_a_day))
        assert (await server.client.delete("/api/grants/grant_unknown")).status_code == 404


async def test_grants_api_refuses_a_scope_that_contradicts_its_target(
    perm_settings: Settings,
) -> None:
    async with live_server(perm_settings) as server:
        conversation_id = await server.new_conversation()

        async def post(**body: object) -> tuple[int, dict[str, str]]:
            response = await server.client.post("/api/grants", json={"tool": "notes.add", **body})
            return response.status_code, response.json()["error"]

        status, error = await post(
            scope="employee", employee="assistant", conversation_id=conversation_id
        )
        assert (status, error["code"]) == (422, "invalid_scope")
        assert error["message"] == (
            "A grant for the whole employee takes no conversation: leave out "
            "conversation_id, or choose the conversation scope."
        )
        status, error = await post(scope="employee", conversation_id=conversation_id)
        assert (status, error["code"]) == (422, "invalid_scope")
        status, error = await post(scope="employee")
        assert (status, error["code"]) == (422, "invalid_scope")
        assert error["message"] == "A grant for the whole employee needs employee: say which one."
        status, error = await post(scope="conversation", employee="assistant")
        assert (status, error["code"]) == (422, "invalid_scope")
        assert error["message"] == (
            "A grant for one conversation needs conversation_id: say which one, "
            "or choose the employee scope."
        )
        assert (await server.client.get("/api/grants")).json() == []


async def test_grants_and_switches_are_per_person(perm_settings: Settings) -> None:
    model = ScriptedChatModel(responses=[_add("mine"), "Done.", _add("theirs")])
    async with live_server(perm_settings, model=model) as server:
        _ann, ann_token = create_user(server.services.db, "ann")
        _bob, bob_token = create_user(server.services.db, "bob")
        ann = {"Authorization": f"Bearer {ann_token}"}
        bob = {"Authorization": f"Bearer {bob_token}"}
        server.client.headers.update(ann)
        ann_conversation = await server.new_conversation()
        grant = await _approve_remembering(server, ann_conversation, "mine", scope="employee")

        client = server.client
        assert (await client.get("/api/grants", headers=bob)).json() == []
        response = await client.delete(f"/api/grants/{grant['id']}", headers=bob)
        assert response.status_code == 404
        response = await client.post(
            "/api/grants",
            headers=bob,
            json={
                "tool": "notes.add",
                "scope": "conversation",
                "conversation_id": ann_conversation,
            },
        )
        assert response.status_code == 404, response.text
        response = await client.put("/api/actions/assistant", headers=bob, json={"on": False})
        assert response.status_code == 200

        # Bob's grant list, switch and conversations do not touch Ann's.
        states = {a["employee"]: a for a in (await client.get("/api/actions")).json()}
        assert states["assistant"]["on"] is True
        assert [g["id"] for g in (await client.get("/api/grants")).json()] == [grant["id"]]

        # Ann's employee-wide grant does not reach Bob's conversations.
        server.client.headers.update(bob)
        response = await client.put("/api/actions/assistant", json={"on": True})
        assert response.status_code == 200
        bob_conversation = await server.new_conversation()
        log = await turn(server, bob_conversation, "add theirs")
        assert only(log, "tool_call.interrupted")["grant_id"] is None


async def test_a_grant_never_covers_a_tool_that_needs_an_approver(perm_settings: Settings) -> None:
    model = ScriptedChatModel(responses=[_add("a"), "Done.", _add("b")])
    async with live_server(perm_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await _approve_remembering(server, conversation_id, "a", scope="conversation")
        response = await server.client.patch(
            "/api/employees/assistant",
            json={  # two people: the owner and an approver (a rule nobody meets is refused)
                "approvers": ["local"],
                "tool_approvals": {"notes.add": {"approvals_required": 2}},
            },
        )
        assert response.status_code == 200, response.text
        (listed,) = (await server.client.get("/api/grants")).json()
        assert listed["void_reason"] == "The tool now needs an approver's decision; it will ask."
        log = await turn(server, conversation_id, "add b")
        assert only(log, "tool_call.interrupted")["grant_id"] is None

        response = await server.client.post(
            "/api/grants",
            json={"tool": "notes.add", "scope": "conversation", "conversation_id": conversation_id},
        )
        assert response.status_code == 422, response.text
        assert response.json()["error"]["code"] == "cannot_remember"
