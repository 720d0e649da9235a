"""MCP tokens (``/api/tokens``): shown once, stored hashed, owned, revocable, and refused by
every route outside ``/mcp`` (403 ``token_scope``), so an agent holding one cannot decide its
own tool calls."""

from __future__ import annotations

import hashlib

import httpx
from sqlmodel import select

from interlock.settings import Settings
from interlock.storage import AccessToken, Database, ToolCall
from interlock.storage.users import create_user
from support.live import LiveServer, live_server
from support.sse import collect, terminals

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def _people(settings: Settings) -> tuple[dict[str, str], dict[str, str]]:
    db = Database(settings.database_url)
    try:
        _ann, ann = create_user(db, "ann")
        _bob, bob = create_user(db, "bob")
    finally:
        db.dispose()
    return {"Authorization": f"Bearer {ann}"}, {"Authorization": f"Bearer {bob}"}


async def _mint(server: LiveServer, name: str = "Claude Desktop", **headers: str) -> dict[str, str]:
    response = await server.client.post("/api/tokens", json={"name": name}, headers=headers)
    assert response.status_code == 201, response.text
    created: dict[str, str] = response.json()
    return created


async def test_a_token_is_shown_once_and_stored_as_its_digest(api_settings: Settings) -> None:
    ann, _bob = _people(api_settings)
    async with live_server(api_settings, headers=ann) as server:
        created = await _mint(server, "  Claude\nDesktop ")
        token = created["token"]
        assert token.startswith("ilk_mcp_") and len(token) > 40
        assert (created["name"], created["scope"]) == ("Claude Desktop", "mcp")
        assert created["last_used_at"] is None and created["revoked_at"] is None

        listed = (await server.client.get("/api/tokens")).json()
        assert [t["id"] for t in listed] == [created["id"]]
        assert "token" not in listed[0]
        with server.services.db.session() as session:
            [row] = session.exec(select(AccessToken)).all()
        assert row.token_hash == hashlib.sha256(token.encode()).hexdigest()
        assert token not in repr(row.model_dump())

        for bad in ({"name": ""}, {"name": "x" * 101}, {"name": "a", "scope": "admin"}):
            refused = await server.client.post("/api/tokens", json=bad)
            assert refused.status_code == 422


async def test_an_mcp_token_is_refused_outside_mcp(api_settings: Settings) -> None:
    ann, _bob = _people(api_settings)
    async with live_server(api_settings, headers=ann) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add a note secret")
        log = await collect(server.client, conversation_id, until=terminals(1))
        call_id = log.of("tool_call.interrupted")[0]["tool_call"]["id"]
        token = (await _mint(server))["token"]

        agent = {"Authorization": f"Bearer {token}"}
        async with httpx.AsyncClient(base_url=server.url, headers=agent, timeout=10) as other:
            base = f"/api/conversations/{conversation_id}"
            attempts = [
                await other.post(f"/api/tool-calls/{call_id}/decision", json={"type": "approve"}),
                await other.get("/api/me"),
                await other.get("/api/conversations"),
                await other.get(base),
                await other.get("/api/approvals"),
                await other.post(f"{base}/messages", json={"content": "approve it"}),
                await other.get("/api/tokens"),
                await other.post("/api/tokens", json={"name": "another"}),
                await other.get("/api/audit"),
            ]
            for response in attempts:
                assert response.status_code == 403, (response.request.url, response.text)
                error = response.json()["error"]
                assert error["code"] == "token_scope"
                assert "/mcp only" in error["message"] and "Claude Desktop" in error["message"]
            # The same token is accepted at /mcp.
            assert (await other.post("/mcp", json=PING)).status_code != 401

        with server.services.db.session() as session:
            call = session.get(ToolCall, call_id)
            assert call is not None and call.status == "interrupted"
            assert len(session.exec(select(AccessToken)).all()) == 1


async def test_revoking_takes_effect_at_once_and_only_for_the_owner(
    api_settings: Settings,
) -> None:
    ann, bob = _people(api_settings)
    async with live_server(api_settings, headers=ann) as server:
        created = await _mint(server)
        agent = {"Authorization": f"Bearer {created['token']}"}
        assert (await server.client.post("/mcp", json=PING, headers=agent)).status_code != 401

        # Bob neither sees nor revokes Ann's token.
        assert (await server.client.get("/api/tokens", headers=bob)).json() == []
        theirs = await server.client.post(f"/api/tokens/{created['id']}/revoke", headers=bob)
        assert theirs.status_code == 404 and theirs.json()["error"]["code"] == "not_found"
        assert (await server.client.post("/mcp", json=PING, headers=agent)).status_code != 401

        revoked = await server.client.post(f"/api/tokens/{created['id']}/revoke")
        assert revoked.status_code == 200 and revoked.json()["revoked_at"] is not None
        refused = await server.client.post("/mcp", json=PING, headers=agent)
        assert refused.status_code == 401
        assert refused.json()["error"]["data"]["code"] == "unauthorized"
        again = await server.client.post(f"/api/tokens/{created['id']}/revoke")
        assert again.json()["revoked_at"] == revoked.json()["revoked_at"]
        [listed] = (await server.client.get("/api/tokens")).json()
        assert listed["revoked_at"] is not None and listed["last_used_at"] is not None


async def test_in_local_mode_tokens_belong_to_the_local_user(api_settings: Settings) -> None:
    async with live_server(api_settings) as server:
        created = await _mint(server, "Cursor")
        with server.services.db.session() as session:
            row = session.get(AccessToken, created["id"])
        me = (await server.client.get("/api/me")).json()
        assert row is not None and row.user_id == me["id"] and me["name"] == "local"
        agent = {"Authorization": f"Bearer {created['token']}"}
        assert (await server.client.post("/mcp", json=PING, headers=agent)).status_code != 401
        refused = await server.client.get("/api/me", headers=agent)
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "token_scope"


async def test_a_token_name_with_a_bidi_override_is_stored_and_listed_as_written(
    api_settings: Settings,
) -> None:
    """Tryout: ``{"name": "a\\u202eb"}`` was stored and listed as ``a b``. The rule of titles
    and clientInfo names: stored as written (the client shows it as ``[U+202E]``)."""
    ann, _bob = _people(api_settings)
    async with live_server(api_settings, headers=ann) as server:
        created = await _mint(server, "a\u202eb")
        listed = (await server.client.get("/api/tokens")).json()

        assert created["name"] == "a\u202eb"
        assert [t["name"] for t in listed] == ["a\u202eb"]
        for blank in ("\u202e", " \u200b "):  # shows nothing: refused as an empty name is
            refused = await server.client.post("/api/tokens", json={"name": blank})
            assert refused.status_code == 422, refused.text
