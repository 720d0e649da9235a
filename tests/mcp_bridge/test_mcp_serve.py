"""Interlock as an MCP server: a real ``mcp`` client against ``/mcp`` on uvicorn (loopback).

Every call goes through the chat's gate and is recorded like a chat call: in the person's
"MCP calls" conversation of the employee, with the client's name, the proposed and executed
args, the decision and the audit record (channel ``mcp``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import httpx
from sqlmodel import select

from interlock.settings import Settings
from interlock.storage import Conversation, Database, ToolCall
from support.mcp import MCP_WAIT_S, audit_of, serve_mcp, text_of, waiting_call
from support.notes import stored_notes


async def test_no_or_bad_token_is_401_with_a_json_rpc_error(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings()) as server:
        async with httpx.AsyncClient(base_url=server.url) as http:
            body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
            for headers in ({}, {"Authorization": "Bearer nope"}):
                response = await http.post("/mcp", json=body, headers=headers)
                assert response.status_code == 401
                assert response.json()["error"]["data"]["code"] == "unauthorized"
                assert response.headers["www-authenticate"].startswith("Bearer")
            # No redirect to /mcp/, and a foreign Host is refused (DNS rebinding).
            response = await http.post("/mcp", json=body, headers={"Host": "evil.example"})
            assert response.status_code == 421
            assert response.json()["error"]["data"]["code"] == "host_not_allowed"


async def test_a_post_that_is_not_json_is_415_with_a_json_rpc_error(
    make_settings: Callable[..., Settings],
) -> None:
    # The MCP library answered these with a plain-text 400 "Invalid Content-Type header".
    async with serve_mcp(make_settings()) as server:
        async with httpx.AsyncClient(base_url=server.url) as http:
            body = b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}'
            for headers in ({"content-type": "text/plain"}, {}):
                response = await http.post("/mcp", content=body, headers=headers)
                assert response.status_code == 415, response.text
                error = response.json()["error"]
                assert error["data"]["code"] == "unsupported_media_type"
                assert error["message"].startswith("[unsupported_media_type] Send the body as JSON")


async def test_an_allow_call_runs_and_is_recorded(make_settings: Callable[..., Settings]) -> None:
    async with serve_mcp(make_settings()) as server:
        async with server.client() as client:
            listed = await client.list_tools()
            by_name = {t.name: t for t in listed.tools}
            assert {"notes_add", "notes_list", "notes_delete"} <= set(by_name)
            assert "load_skill" not in by_name
            assert by_name["notes_list"].annotations is not None
            assert by_name["notes_list"].annotations.read_only_hint is True
            assert by_name["notes_delete"].annotations.destructive_hint is True  # type: ignore[union-attr]
            result = await client.call_tool("notes_list", {})
        assert not result.is_error, text_of(result)
        assert text_of(result) == "No notes yet."
        with server.live.services.db.session() as session:
            [record] = session.exec(
                select(Conversation).where(Conversation.owner_id == server.user_id)
            ).all()
            [call] = session.exec(
                select(ToolCall).where(ToolCall.conversation_id == record.id)
            ).all()
        assert (record.channel, record.title, record.employee) == ("mcp", "MCP calls", "assistant")
        assert (call.name, call.status, call.client_name) == (
            "notes.list",
            "succeeded",
            "Claude Desktop",
        )
        [audit] = audit_of(server, call.id)
        assert (audit.decider, audit.channel, audit.outcome) == ("policy:allow", "mcp", "allowed")
        # The record shows in the person's conversation list, marked as such.
        listed_conversations = (await server.live.client.get("/api/conversations")).json()
        assert [c["channel"] for c in listed_conversations] == ["mcp"]


async def test_deny_tools_are_never_listed_and_refused(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings()) as server:
        async with server.client(query="?employee=scout") as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert "notes_add" not in names and "notes_delete" not in names
            result = await client.call_tool("notes_add", {"text": "x"})
        assert result.is_error
        assert text_of(result).startswith("Error [permission_denied]:")
        assert stored_notes(server.live.services.db) == []


async def test_bad_args_are_an_error_result_with_the_code(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings()) as server:
        async with server.client() as client:
            result = await client.call_tool("notes_add", {"text": ""})
            unknown = await client.call_tool("no_such_tool", {})
        assert result.is_error and text_of(result).startswith("Error [invalid_args]:")
        assert unknown.is_error and text_of(unknown).startswith("Error [unknown_tool]:")


async def test_grouped_and_read_only_connections_reach_the_same_gate(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings()) as server:
        async with server.client(query="?exposition=grouped") as client:
            by_name = {t.name: t for t in (await client.list_tools()).tools}
            assert "notes" in by_name and "notes_add" not in by_name
            result = await client.call_tool("notes", {"action": "list"})
            assert text_of(result) == "No notes yet."
        async with server.client(query="?read_only=true") as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert "notes_list" in names and "notes_add" not in names
            refused = await client.call_tool("notes_add", {"text": "x"})
            assert refused.is_error and text_of(refused).startswith("Error [unknown_tool]:")
        async with httpx.AsyncClient(base_url=server.url) as http:
            response = await http.post(
                "/mcp?exposition=stacked",
                json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                headers={"Authorization": f"Bearer {server.token}"},
            )
            assert response.status_code == 422
            assert response.json()["error"]["data"]["code"] == "invalid_mcp_option"
        with server.live.services.db.session() as session:
            calls = session.exec(select(ToolCall)).all()
        assert [(c.name, c.status) for c in calls] == [("notes.list", "succeeded")]


async def test_the_list_comes_in_pages(make_settings: Callable[..., Settings]) -> None:
    async with serve_mcp(make_settings(mcp_page_size=2)) as server:
        async with server.client() as client:
            names: list[str] = []
            cursor: str | None = None
            pages = 0
            while True:
                listed = await client.list_tools(cursor=cursor)
                assert len(listed.tools) <= 2
                names += [t.name for t in listed.tools]
                pages += 1
                cursor = listed.next_cursor
                if cursor is None:
                    break
        assert pages > 1 and len(names) == len(set(names))
        assert {"notes_add", "notes_list", "notes_delete"} <= set(names)


async def test_the_record_conversation_takes_no_chat_message(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings()) as server:
        async with server.client() as client:
            await client.call_tool("notes_list", {})
        [record] = (await server.live.client.get("/api/conversations")).json()
        response = await server.live.client.post(
            f"/api/conversations/{record['id']}/messages", json={"content": "hello"}
        )
        assert response.status_code == 409
        assert response.json()["error"]["code"] == "mcp_record"


async def test_a_server_stopping_closes_the_calls_it_cannot_answer(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(mcp_approval_channel="web")
    async with serve_mcp(settings) as server, server.client() as client:
        calling = asyncio.create_task(client.call_tool("notes_add", {"text": "buy milk"}))
        await waiting_call(server)
        server.live.stop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(calling, MCP_WAIT_S)
        await server.live.stopped()
    db = Database(settings.database_url)
    try:
        with db.session() as session:
            [call] = session.exec(select(ToolCall)).all()
    finally:
        db.dispose()
    assert call.status == "cancelled" and call.executed_args is None
    assert call.error_message == (
        "The server stopped while Claude Desktop waited for the decision, so the call did not run."
    )


async def test_parallel_first_calls_share_one_record(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings()) as server:
        async with server.client() as one, server.client() as two:
            results = await asyncio.gather(
                *(client.call_tool("notes_list", {}) for client in (one, two, one, two))
            )
        assert not any(r.is_error for r in results)
        conversations = (await server.live.client.get("/api/conversations")).json()
        assert [c["channel"] for c in conversations] == ["mcp"]
        with server.live.services.db.session() as session:
            calls = session.exec(select(ToolCall)).all()
        assert {c.conversation_id for c in calls} == {conversations[0]["id"]}
        assert len(calls) == 4


async def test_tools_for_chats_only_are_refused_by_name(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings()) as server:
        async with server.client() as client:
            result = await client.call_tool("load_skill", {"name": "notes"})
        assert result.is_error
        assert text_of(result) == (
            "Error [not_found]: The tool 'load_skill' is not offered to MCP clients."
        )
        with server.live.services.db.session() as session:
            [call] = session.exec(select(ToolCall)).all()
        assert (call.name, call.status, call.error_code) == ("load_skill", "failed", "not_found")
