"""An MCP call waiting on one server process, decided on another (PostgreSQL).

Two real ``interlock serve`` processes share a database. Claude Desktop's call waits on the
first; the person approves it through the second, which runs it (the decision's worker runs
the decided call); the first wakes on the call's events (LISTEN/NOTIFY) and answers the MCP
request with the result. The note is added once.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from interlock.storage import Database
from interlock.storage.users import create_user
from support.mcp import mcp_client, text_of
from support.notes import stored_notes
from support.processes import servers

pytestmark = pytest.mark.postgres

WAIT_S = 30.0


async def test_a_call_waiting_on_one_worker_is_decided_on_another(
    pg_url: str, tmp_path: Path
) -> None:
    db = Database(pg_url)
    try:
        user, token = create_user(db, "ann")
    finally:
        db.dispose()
    auth = {"Authorization": f"Bearer {token}"}
    async with servers(pg_url, tmp_path, 2, mcp_approval_channel="web") as (first, second):
        async with mcp_client(first.url, token) as client:
            calling = asyncio.create_task(client.call_tool("notes_add", {"text": "buy milk"}))
            async with asyncio.timeout(WAIT_S):
                while not (  # noqa: ASYNC110 (an HTTP read between sleeps)
                    approvals := (await second.client.get("/api/approvals", headers=auth)).json()
                ):
                    await asyncio.sleep(0.05)
            [approval] = approvals
            decided = await second.client.post(
                f"/api/tool-calls/{approval['tool_call']['id']}/decision",
                json={"type": "approve"},
                headers=auth,
            )
            assert decided.status_code == 200, decided.text
            result = await asyncio.wait_for(calling, WAIT_S)
        assert text_of(result) == "Added note #1: buy milk", text_of(result)
    check = Database(pg_url)
    try:
        assert [t for _, t in stored_notes(check, user.id)] == ["buy milk"]
    finally:
        check.dispose()
