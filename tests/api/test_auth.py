"""Bearer tokens: only a conversation's owner sees or decides on it; anyone else gets 404."""

from __future__ import annotations

import httpx

from interlock.settings import Settings
from interlock.storage import Database
from interlock.storage.users import create_user
from support.live import live_server


async def test_without_users_loopback_requests_act_as_the_local_user(
    api_settings: Settings,
) -> None:
    async with live_server(api_settings) as server:
        me = await server.client.get("/api/me")
        assert me.status_code == 200
        assert me.json()["name"] == "local"


async def test_once_a_user_exists_requests_need_a_valid_token(api_settings: Settings) -> None:
    db = Database(api_settings.database_url)
    _user, token = create_user(db, "ann")
    db.dispose()
    async with live_server(api_settings) as server:
        for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": f"Basic {token}"}):
            response = await server.client.get("/api/conversations", headers=headers)
            assert response.status_code == 401
            assert response.json()["error"]["code"] == "unauthorized"
        ok = await server.client.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert ok.status_code == 200 and ok.json()["name"] == "ann"


async def test_a_header_that_is_not_a_bearer_token_says_how_to_send_it(
    api_settings: Settings,
) -> None:
    # "Authorization: Basic <token>" and a bare token were told "The bearer token is not
    # valid.", though the token itself was right: the header was what to fix.
    db = Database(api_settings.database_url)
    _user, token = create_user(db, "ann")
    db.dispose()
    async with live_server(api_settings) as server:
        for header in (f"Basic {token}", token, f"Token {token}"):
            response = await server.client.get("/api/me", headers={"Authorization": header})
            assert response.status_code == 401
            error = response.json()["error"]
            assert error["code"] == "unauthorized"
            assert error["message"].startswith("Send the token as 'Authorization: Bearer <token>'")
        wrong = await server.client.get("/api/me", headers={"Authorization": "Bearer nope"})
        assert wrong.json()["error"]["message"] == "The bearer token is not valid."


async def test_another_user_cannot_see_stream_or_decide_on_a_conversation(
    api_settings: Settings,
) -> None:
    db = Database(api_settings.database_url)
    _ann, ann_token = create_user(db, "ann")
    _bob, bob_token = create_user(db, "bob")
    db.dispose()
    ann = {"Authorization": f"Bearer {ann_token}"}
    bob = {"Authorization": f"Bearer {bob_token}"}
    async with live_server(api_settings, headers=ann) as server:
        conversation_id = await server.new_conversation()
        log = await server.turn(conversation_id, "add a note secret")
        call_id = log.of("tool_call.interrupted")[0]["tool_call"]["id"]

        async with httpx.AsyncClient(base_url=server.url, headers=bob, timeout=10) as other:
            base = f"/api/conversations/{conversation_id}"
            attempts = [
                await other.get(base),
                await other.get(f"{base}/pending"),
                await other.get(f"{base}/events"),
                await other.post(f"{base}/messages", json={"content": "hi"}),
                await other.post(f"{base}/cancel"),
                await other.delete(base),
                await other.post(f"/api/tool-calls/{call_id}/decision", json={"type": "approve"}),
            ]
            assert [r.status_code for r in attempts] == [404] * len(attempts)
            assert all(r.json()["error"]["code"] == "not_found" for r in attempts)
            assert (await other.get("/api/conversations")).json() == []

        pending = await server.client.get(f"/api/conversations/{conversation_id}/pending")
        assert [c["id"] for c in pending.json()] == [call_id]
