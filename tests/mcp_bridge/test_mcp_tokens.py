"""An MCP client holding an MCP token (not the person's own token): it works at ``/mcp``, the
same token cannot approve its own waiting call through the web API, and revoking it stops an
open MCP session at its next request."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError
from sqlmodel import select

from interlock.settings import Settings
from interlock.storage import AuditRecord, ToolCall
from support.mcp import McpServer, mcp_client, serve_mcp, text_of
from support.notes import stored_notes

WAIT_S = 40.0  # generous for a loaded machine, yet under the 50 s MCP approval timeout


async def _mint(server: McpServer, name: str = "Laptop") -> dict[str, Any]:
    response = await server.live.client.post("/api/tokens", json={"name": name})
    assert response.status_code == 201, response.text
    created: dict[str, Any] = response.json()
    return created


async def _waiting_call(server: McpServer) -> dict[str, Any]:
    """The MCP call waiting in the person's Approvals view (bounded poll of the API)."""
    async with asyncio.timeout(WAIT_S):
        while True:
            approvals = (await server.live.client.get("/api/approvals")).json()
            if approvals:
                call: dict[str, Any] = approvals[0]["tool_call"]
                return call
            await asyncio.sleep(0.05)


async def test_the_agent_cannot_approve_its_own_call(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings(mcp_approval_channel="web")) as server:
        token = (await _mint(server))["token"]
        async with mcp_client(server.url, token) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert {"notes_add", "notes_list"} <= names
            calling = asyncio.create_task(client.call_tool("notes_add", {"text": "buy milk"}))
            call = await _waiting_call(server)
            assert call["client_name"] == "Claude Desktop (token “Laptop”)"

            # The agent program holds the token: the web API refuses it.
            agent = {"Authorization": f"Bearer {token}"}
            async with httpx.AsyncClient(base_url=server.url, headers=agent) as http:
                own = await http.post(
                    f"/api/tool-calls/{call['id']}/decision", json={"type": "approve"}
                )
            assert own.status_code == 403 and own.json()["error"]["code"] == "token_scope"
            assert not calling.done()

            # The person approves with their own token.
            decided = await server.live.decide(call["id"], type="approve")
            assert decided.status_code == 200, decided.text
            result = await asyncio.wait_for(calling, WAIT_S)
        assert not result.is_error, text_of(result)
        assert [t for _, t in stored_notes(server.live.services.db)] == ["buy milk"]
        with server.live.services.db.session() as session:
            stored = session.get(ToolCall, call["id"])
        assert stored is not None and stored.client_name == "Claude Desktop (token “Laptop”)"


async def test_a_revoked_token_stops_an_open_session(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings()) as server:
        created = await _mint(server)
        async with mcp_client(server.url, created["token"]) as client:
            first = await client.call_tool("notes_list", {})
            assert not first.is_error, text_of(first)
            revoked = await server.live.client.post(f"/api/tokens/{created['id']}/revoke")
            assert revoked.status_code == 200
            with pytest.raises(MCPError, match=r"\[unauthorized\] The bearer token is not valid"):
                await asyncio.wait_for(client.call_tool("notes_list", {}), WAIT_S)
        with server.live.services.db.session() as session:
            assert len(session.exec(select(ToolCall)).all()) == 1


_YES = types.ElicitResult(action="accept", content={"approve": True})


class _Asker:
    """An elicitation callback that would approve anything (the agent answering itself)."""

    def __init__(self) -> None:
        self.asked = 0

    async def __call__(self, _context: Any, _params: types.ElicitRequestParams) -> Any:
        self.asked += 1
        return types.ElicitResult(action="accept", content={"approve": True})


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_client_with_an_mcp_token_is_never_asked_to_approve(
    make_settings: Callable[..., Settings], mode: str
) -> None:
    """Even with ``mcp_approval_channel=both``: the program answering would approve itself."""
    asker = _Asker()
    async with serve_mcp(make_settings(mcp_approval_channel="both")) as server:
        token = (await _mint(server))["token"]
        async with mcp_client(server.url, token, mode=mode, elicitation_callback=asker) as client:
            calling = asyncio.create_task(client.call_tool("notes_add", {"text": "buy milk"}))
            call = await _waiting_call(server)
            # An answer to a question it was not asked is ignored: the call is placed anew
            # and waits for the web too.
            forged = {"interlock.approval." + call["id"]: _YES}
            second = asyncio.create_task(
                client.call_tool("notes_add", {"text": "buy milk"}, input_responses=forged)
            )
            async with asyncio.timeout(WAIT_S):
                while len((await server.live.client.get("/api/approvals")).json()) < 2:  # noqa: ASYNC110
                    await asyncio.sleep(0.05)
            for waiting in (await server.live.client.get("/api/approvals")).json():
                await server.live.decide(waiting["tool_call"]["id"], type="reject")
            first, again = await asyncio.wait_for(asyncio.gather(calling, second), WAIT_S)
        assert asker.asked == 0
        assert first.is_error and again.is_error
        assert text_of(first).startswith("Error [rejected]")
        assert stored_notes(server.live.services.db) == []
        with server.live.services.db.session() as session:
            audits = session.exec(select(AuditRecord)).all()
        calls = [a for a in audits if a.kind == "tool_call"]  # besides the token's creation
        assert sorted((a.outcome, a.channel) for a in calls) == [("rejected", "api")] * 2
