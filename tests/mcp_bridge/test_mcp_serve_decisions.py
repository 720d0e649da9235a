"""Interlock as an MCP server: calls the person decides (ask, edit, reject, expiry) with a real
``mcp`` client against ``/mcp``, each recorded and audited as a chat call is, with the client's
name; a rejected call is not put to the person again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import mcp_types as types
from sqlmodel import select

from interlock.settings import Settings
from interlock.storage import AuditRecord, ToolCall
from support.mcp import MCP_WAIT_S, audit_of, call_of, serve_mcp, text_of, waiting_call
from support.notes import stored_notes


async def test_an_ask_call_waits_for_the_web_decision(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings(mcp_approval_channel="web")) as server:
        async with server.client() as client:
            calling = asyncio.create_task(client.call_tool("notes_add", {"text": "buy milk"}))
            approval = await waiting_call(server)
            call = approval["tool_call"]
            assert call["name"] == "notes.add" and call["client_name"] == "Claude Desktop"
            assert call["status"] == "interrupted"
            assert not calling.done()
            response = await server.live.decide(call["id"], type="approve")
            assert response.status_code == 200, response.text
            result = await asyncio.wait_for(calling, MCP_WAIT_S)
        assert not result.is_error, text_of(result)
        assert text_of(result) == "Added note #1: buy milk"
        assert result.structured_content is None  # notes.add declares no output schema
        assert [t for _, t in stored_notes(server.live.services.db)] == ["buy milk"]
        [audit] = audit_of(server, call["id"])
        assert (audit.decider, audit.channel, audit.outcome) == (server.user_id, "api", "approved")


async def test_an_edited_call_runs_with_the_edited_args(
    make_settings: Callable[..., Settings],
) -> None:
    async with serve_mcp(make_settings(mcp_approval_channel="web")) as server:
        async with server.client() as client:
            calling = asyncio.create_task(client.call_tool("notes_add", {"text": "by milk"}))
            call = (await waiting_call(server))["tool_call"]
            response = await server.live.decide(call["id"], type="edit", args={"text": "buy milk"})
            assert response.status_code == 200, response.text
            result = await asyncio.wait_for(calling, MCP_WAIT_S)
        assert [b.text for b in result.content if isinstance(b, types.TextContent)] == [
            "Added note #1: buy milk",
            'The person edited this call before it ran; it ran with {"text": "buy milk"}.',
        ]
        stored = call_of(server, call["id"])
        assert stored.proposed_args == {"text": "by milk"}
        assert stored.executed_args == {"text": "buy milk"}
        [audit] = audit_of(server, call["id"])
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
            [audit] = audit_of(server, call.id)
            assert (audit.decider, audit.outcome) == ("timeout", "expired")
            late = await server.live.decide(call.id, type="approve")
            assert late.status_code == 409
            assert late.json()["error"]["details"]["status"] == "expired"
        assert stored_notes(server.live.services.db) == []


async def test_a_rejected_call_says_so(make_settings: Callable[..., Settings]) -> None:
    async with serve_mcp(make_settings(mcp_approval_channel="web")) as server:
        async with server.client() as client:
            calling = asyncio.create_task(client.call_tool("notes_add", {"text": "buy milk"}))
            call = (await waiting_call(server))["tool_call"]
            response = await server.live.decide(call["id"], type="reject", message="not now")
            assert response.status_code == 200, response.text
            result = await asyncio.wait_for(calling, MCP_WAIT_S)
        assert result.is_error
        assert text_of(result).startswith("Error [rejected]: Rejected by the person: not now.")
        assert stored_notes(server.live.services.db) == []


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
                call = (await waiting_call(server))["tool_call"]
                response = await server.live.decide(
                    call["id"], type="respond", message="you have none"
                )
                assert response.status_code == 200, response.text
                result = await asyncio.wait_for(calling, MCP_WAIT_S)
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
            call = (await waiting_call(server))["tool_call"]
            assert (await server.live.decide(call["id"], type="approve")).status_code == 200
            await asyncio.wait_for(calling, MCP_WAIT_S)
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
            call = (await waiting_call(server))["tool_call"]
            await server.live.decide(call["id"], type="reject", message="no")
            await asyncio.wait_for(calling, MCP_WAIT_S)
            again = await client.call_tool("notes_add", {"text": "buy milk"})
            assert again.is_error
            assert text_of(again).startswith("Error [repeated]: Not asked again")
            assert (await server.live.client.get("/api/approvals")).json() == []
        with server.live.services.db.session() as session:
            repeat = session.exec(
                select(AuditRecord).where(AuditRecord.decider == "policy:repeat")
            ).all()
        assert [(r.outcome, r.channel) for r in repeat] == [("rejected", "mcp")]
