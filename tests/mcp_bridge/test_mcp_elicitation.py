"""ASK calls put to the person in the MCP client too (elicitation), first answer wins."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import mcp_types as types
import pytest
from sqlmodel import select

from interlock.mcp_bridge.gate import approval_question
from interlock.settings import Settings
from interlock.storage import AuditRecord, ToolCall
from interlock.storage.views import ToolCallOut
from support.mcp import serve_mcp, text_of
from support.notes import stored_notes

WAIT_S = 40.0  # generous for a loaded machine, yet under the 50 s MCP approval timeout
_CALL: dict[str, Any] = {
    "id": "call_1",
    "message_id": 1,
    "run_id": "mcp_1",
    "permission": "ASK",
    "status": "interrupted",
    "created_at": "2026-01-01T00:00:00Z",
}


class Asker:
    """An elicitation callback that records each question and answers when told."""

    def __init__(self, answer: types.ElicitResult | None = None) -> None:
        self.questions: list[types.ElicitRequestParams] = []
        self.asked = asyncio.Event()
        self.answer = answer
        self.release = asyncio.Event()

    async def __call__(
        self, _context: Any, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        self.questions.append(params)
        self.asked.set()
        if self.answer is None:
            await self.release.wait()
            return types.ElicitResult(action="accept", content={"approve": True})
        return self.answer


def _audit(db: Any) -> list[tuple[str, str, str]]:
    with db.session() as session:
        return [(a.outcome, a.channel, a.tool) for a in session.exec(select(AuditRecord)).all()]


@pytest.mark.parametrize(
    ("mode", "version"),
    [("legacy", "2025-11-25"), ("auto", "2026-07-28")],  # 2026: asked through an input round
)
async def test_a_yes_in_the_mcp_client_approves_the_call(
    make_settings: Callable[..., Settings], mode: str, version: str
) -> None:
    asker = Asker(types.ElicitResult(action="accept", content={"approve": True}))
    async with serve_mcp(make_settings(mcp_approval_channel="both")) as server:
        async with server.client(mode=mode, elicitation_callback=asker) as client:
            assert client.protocol_version == version
            result = await asyncio.wait_for(
                client.call_tool("notes_add", {"text": "buy milk"}), WAIT_S
            )
        assert not result.is_error, text_of(result)
        assert text_of(result) == "Added note #1: buy milk"
        [question] = asker.questions
        assert question.message.startswith("Claude Desktop wants to run “Add a note” through")
        assert _audit(server.live.services.db) == [("approved", "mcp", "notes.add")]


async def test_a_no_in_the_mcp_client_rejects_it_with_the_reason(
    make_settings: Callable[..., Settings],
) -> None:
    asker = Asker(
        types.ElicitResult(action="accept", content={"approve": False, "reason": "not today"})
    )
    async with serve_mcp(make_settings(mcp_approval_channel="elicitation")) as server:
        async with server.client(elicitation_callback=asker) as client:
            result = await client.call_tool("notes_add", {"text": "buy milk"})
        assert result.is_error
        assert text_of(result).startswith("Error [rejected]: Rejected by the person: not today.")
        assert stored_notes(server.live.services.db) == []


async def test_the_web_answer_first_wins_and_the_late_one_is_dropped(
    make_settings: Callable[..., Settings],
) -> None:
    asker = Asker()  # answers "yes" only once released, after the web decided
    async with serve_mcp(make_settings(mcp_approval_channel="both")) as server:
        async with server.client(elicitation_callback=asker) as client:
            calling = asyncio.create_task(client.call_tool("notes_add", {"text": "buy milk"}))
            await asyncio.wait_for(asker.asked.wait(), WAIT_S)
            with server.live.services.db.session() as session:
                [call] = session.exec(select(ToolCall)).all()
            response = await server.live.decide(call.id, type="reject", message="no")
            assert response.status_code == 200
            result = await asyncio.wait_for(calling, WAIT_S)
            asker.release.set()
        assert result.is_error and "Rejected by the person: no." in text_of(result)
        assert _audit(server.live.services.db) == [("rejected", "api", "notes.add")]
        assert stored_notes(server.live.services.db) == []


async def test_web_only_never_asks_in_the_mcp_client(
    make_settings: Callable[..., Settings],
) -> None:
    asker = Asker(types.ElicitResult(action="accept", content={"approve": True}))
    settings = make_settings(mcp_approval_channel="web", mcp_approval_timeout_s=0.5)
    async with serve_mcp(settings) as server:
        async with server.client(elicitation_callback=asker) as client:
            result = await client.call_tool("notes_add", {"text": "buy milk"})
        assert text_of(result).startswith("Error [expired]:")
        assert asker.questions == []


async def test_a_question_tool_is_never_put_as_a_yes_or_no(
    make_settings: Callable[..., Settings],
) -> None:
    """Found in QA: ``ask.confirm`` (answered with respond) was put to the MCP client as "Run
    it?"; a yes was then refused by the server and silently dropped."""
    asker = Asker(types.ElicitResult(action="accept", content={"approve": True}))
    settings = make_settings(mcp_approval_channel="both", mcp_approval_timeout_s=0.5)
    async with serve_mcp(settings) as server:
        for mode in ("legacy", "auto"):  # a session's request, a 2026-07-28 input round
            async with server.client(mode=mode, elicitation_callback=asker) as client:
                result = await client.call_tool("ask_confirm", {"summary": f"Send it ({mode})"})
            assert text_of(result).startswith("Error [expired]:")
            assert asker.questions == []


def test_a_question_without_a_confirmation_names_the_args_not_the_code() -> None:
    """Found in QA: a tool without a confirmation was asked about as "Save (documents.write)"."""
    call = ToolCallOut.model_validate(
        {
            **_CALL,
            "name": "reports.send",
            "title": "Send a report",
            "proposed_args": {"to": "ann@example.com", "pages": [1, 2], "body": "x" * 100},
        }
    )
    question = approval_question(call, "Claude Desktop")
    assert question == (
        "Claude Desktop wants to run “Send a report” through Interlock with to “ann@example.com”, "
        f"pages [1, 2], body “{'x' * 59}…”. Run it?"
    )
    assert "reports.send" not in question


async def test_a_2026_client_answering_after_the_web_gets_the_web_outcome(
    make_settings: Callable[..., Settings],
) -> None:
    asker = Asker()  # answers "yes" only once released, after the web decided
    async with serve_mcp(make_settings(mcp_approval_channel="both")) as server:
        async with server.client(mode="auto", elicitation_callback=asker) as client:
            calling = asyncio.create_task(client.call_tool("notes_add", {"text": "buy milk"}))
            await asyncio.wait_for(asker.asked.wait(), WAIT_S)
            with server.live.services.db.session() as session:
                [call] = session.exec(select(ToolCall)).all()
            response = await server.live.decide(call.id, type="edit", args={"text": "buy oat milk"})
            assert response.status_code == 200
            asker.release.set()
            result = await asyncio.wait_for(calling, WAIT_S)
        assert text_of(result).startswith("Added note #1: buy oat milk")
        assert 'it ran with {"text": "buy oat milk"}' in text_of(result)
        assert _audit(server.live.services.db) == [("edited", "api", "notes.add")]
