"""Interlock as an MCP server: a real ``mcp`` client against ``/mcp`` on uvicorn (loopback).

Every call goes through the chat's gate and is recorded like a chat call: in the person's
"MCP calls" conversation of the employee, with the client's name, the proposed and executed
args, the decision and the audit record (channel ``mcp``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import httpx
import mcp_types as types
from sqlmodel import col, select

from interlock.settings import Settings
from interlock.storage import AuditRecord, Conversation, Database, ToolCall
from support.mcp import McpServer, serve_mcp, text_of
from support.notes import stored_notes

WAIT_S = 40.0  # generous for a loaded machine, yet under the 50 s MCP approval timeout


async def _waiting(server: McpServer) -> dict[str, Any]:
    """The one MCP call waiting in the person's Approvals view (bounded poll of the API)."""
    found: list[dict[str, Any]] = []

    async def look() -> bool:
        approvals = (await server.live.client.get("/api/approvals")).json()
        found[:] = [a for a in approvals if a["tool_call"]["client_name"] is not None]
        return bool(found)

    async with asyncio.timeout(WAIT_S):
        while not await look():  # noqa: ASYNC110 (an HTTP read between sleeps)
            await asyncio.sleep(0.05)
    assert len(found) == 1
    return found[0]


def _audit(server: McpServer, call_id: str) -> list[AuditRecord]:
    with server.live.services.db.session() as session:
        return list(
            session.exec(
                select(AuditRecord)
                .where(AuditRecord.tool_call_id == call_id)
                .order_by(col(AuditRecord.seq))
            ).all()
        )


def _call(server: McpServer, call_id: str) -> ToolCall:
    with server.live.services.db.session() as session:
        call = session.get(ToolCall, call_id)
        assert call is not None
        return call


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
        [audit] = _audit(server, call.id)
        assert (audit.decider, audit.channel, audit.outcome) == ("policy:allow", "mcp", "allowed")
        # The record shows in the person's conversation list, marked as such.
        listed_conversations = (await server.live.client.get("/api/conversations")).json()
        assert [c["channel"] for c in listed_conversations] == ["mcp"]


async def test_an_ask_call_waits_for_the_web_decision(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings(mcp_approval_channel="web")) as server:
        async with server.client() as client:
            calling = asyncio.create_task(client.call_tool("notes_add", {"text": "buy milk"}))
            approval = await _waiting(server)
            call = approval["tool_call"]
            assert call["name"] == "notes.add" and call["client_name"] == "Claude Desktop"
            assert call["status"] == "interrupted"
            assert not calling.done()
            response = await server.live.decide(call["id"], type="approve")
            assert response.status_code == 200, response.text
            result = await asyncio.wait_for(calling, WAIT_S)
        assert not result.is_error, text_of(result)
        assert text_of(result) == "Added note #1: buy milk"
        assert result.structured_content is None  # notes.add declares no output schema
        assert [t for _, t in stored_notes(server.live.services.db)] == ["buy milk"]
        [audit] = _audit(server, call["id"])
        assert (audit.decider, audit.channel, audit.outcome) == (server.user_id, "api", "approved")


async def test_an_edited_call_runs_with_the_edited_args(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings(mcp_approval_channel="web")) as server:
        async with server.client() as client:
            calling = asyncio.create_task(client.call_tool("notes_add", {"text": "by milk"}))
            call = (await _waiting(server))["tool_call"]
            response = await server.live.decide(call["id"], type="edit", args={"text": "buy milk"})
            assert response.status_code == 200, response.text
            result = await asyncio.wait_for(calling, WAIT_S)
        assert [b.text for b in result.content if isinstance(b, types.TextContent)] == [
            "Added note #1: buy milk",
            'The person edited this call before it ran; it ran with {"text": "buy milk"}.',
        ]
        stored = _call(server, call["id"])
        assert stored.proposed_args == {"text": "by milk"}
        assert stored.executed_args == {"text": "buy milk"}
        [audit] = _audit(server, call["id"])
        assert audit.outcome == "edited" and audit.executed_args == {"text": "buy milk"}


async def test_a_call_nobody_decides_expires(make_settings: Callable[..., Settings]) -> None:
    settings = make_settings(mcp_approval_timeout_s=1.0, mcp_approval_channel="web")
    async with serve_mcp(settings) as server:
        async with server.client() as client:
            result = await client.call_tool("notes_add", {"text": "buy milk"})
            assert result.is_error
            assert text_of(result).startswith("Error [expired]: Not approved in time")
            with server.live.services.db.session() as session:
                [call] = session.exec(select(ToolCall)).all()
            assert call.status == "expired" and call.executed_args is None
            [audit] = _audit(server, call.id)
            assert (audit.decider, audit.outcome) == ("timeout", "expired")
            late = await server.live.decide(call.id, type="approve")
            assert late.status_code == 409
            assert late.json()["error"]["details"]["status"] == "expired"
        assert stored_notes(server.live.services.db) == []


async def test_a_rejected_call_says_so(make_settings: Callable[..., Settings]) -> None:
    async with serve_mcp(make_settings(mcp_approval_channel="web")) as server:
        async with server.client() as client:
            calling = asyncio.create_task(client.call_tool("notes_add", {"text": "buy milk"}))
            call = (await _waiting(server))["tool_call"]
            response = await server.live.decide(call["id"], type="reject", message="not now")
            assert response.status_code == 200, response.text
            result = await asyncio.wait_for(calling, WAIT_S)
        assert result.is_error
        assert text_of(result).startswith("Error [rejected]: Rejected by the person: not now.")
        assert stored_notes(server.live.services.db) == []


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
        await _waiting(server)
        server.live.stop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(calling, WAIT_S)
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


async def test_an_answer_in_place_of_a_tool_with_an_output_schema_is_an_error_result(
    make_settings: Callable[..., Settings],
) -> None:
    """Found in QA: ``notes.list`` (it declares an output schema) set to ASK and answered with
    ``respond``: a success without structured content, which the MCP client refused with a
    RuntimeError instead of a result."""
    async with serve_mcp(make_settings(mcp_approval_channel="web")) as server:
        server.live.services.employees.update(
            "assistant", {"tool_overrides": {"notes.list": "ASK"}}
        )
        for query, name, args in (
            ("", "notes_list", {}),
            ("?exposition=grouped&read_only=true", "notes", {"action": "list"}),
        ):
            async with server.client(query=query) as client:
                calling = asyncio.create_task(client.call_tool(name, args))
                call = (await _waiting(server))["tool_call"]
                response = await server.live.decide(
                    call["id"], type="respond", message="you have none"
                )
                assert response.status_code == 200, response.text
                result = await asyncio.wait_for(calling, WAIT_S)
            assert result.is_error
            assert text_of(result) == (
                "Error [responded]: The person answered instead of running “List notes”: "
                "you have none"
            )


async def test_the_audit_log_names_the_mcp_client(make_settings: Callable[..., Settings]) -> None:
    """Found in QA: the audit log said "Web" for a web decision on an MCP call and never named
    the client that asked; records and the CSV export now carry ``client_name``."""
    async with serve_mcp(make_settings(mcp_approval_channel="web")) as server:
        async with server.client() as client:
            await client.call_tool("notes_list", {})
            calling = asyncio.create_task(client.call_tool("notes_add", {"text": "buy milk"}))
            call = (await _waiting(server))["tool_call"]
            assert (await server.live.decide(call["id"], type="approve")).status_code == 200
            await asyncio.wait_for(calling, WAIT_S)
        page = (await server.live.client.get("/api/audit")).json()
        assert [(r["tool"], r["channel"], r["client_name"]) for r in page["records"]] == [
            ("notes.add", "api", "Claude Desktop"),
            ("notes.list", "mcp", "Claude Desktop"),
        ]
        export = (await server.live.client.get("/api/audit/export")).text.splitlines()
        assert export[0].endswith(",hash,client,kind")
        assert all(line.endswith(",Claude Desktop,tool_call") for line in export[1:])


async def test_a_rejected_call_is_not_put_to_the_person_again(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings(mcp_approval_channel="web")) as server:
        async with server.client() as client:
            calling = asyncio.create_task(client.call_tool("notes_add", {"text": "buy milk"}))
            call = (await _waiting(server))["tool_call"]
            await server.live.decide(call["id"], type="reject", message="no")
            await asyncio.wait_for(calling, WAIT_S)
            again = await client.call_tool("notes_add", {"text": "buy milk"})
            assert again.is_error
            assert text_of(again).startswith("Error [repeated]: Not asked again")
            assert (await server.live.client.get("/api/approvals")).json() == []
        with server.live.services.db.session() as session:
            repeat = session.exec(
                select(AuditRecord).where(AuditRecord.decider == "policy:repeat")
            ).all()
        assert [(r.outcome, r.channel) for r in repeat] == [("rejected", "mcp")]


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
