"""An MCP client's call approved in Chromium, from the Approvals view.

Claude Desktop (a real ``mcp`` client on ``/mcp`` with Ann's API token) asks to add a note;
the call waits. Ann's Approvals view lists it "Requested by Claude Desktop via MCP"; the
entry opens her "MCP calls" conversation with the card (which says the same, and no
composer: nobody chats there); she approves and the MCP client gets the tool's result.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from interlock.storage.users import create_user
from support.a11y import axe_violations, report
from support.live import LiveServer
from support.mcp import mcp_client, text_of
from support.pages import STATUS_WORDS, notes, tool_call

pytestmark = pytest.mark.asyncio(loop_scope="session")

WAIT_S = 40.0  # generous for a loaded machine, yet under the 50 s MCP approval timeout


async def test_an_mcp_call_is_approved_in_the_approvals_view(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    _ann, token = create_user(app.services.db, "ann")
    async with mcp_client(app.url, token) as client:
        calling = asyncio.create_task(client.call_tool("notes_add", {"text": "buy milk"}))

        await page.add_init_script(f"localStorage.setItem('interlock.token', {token!r})")
        await page.goto("/#/approvals")
        item = page.get_by_test_id("approval-item")
        await expect(item).to_have_count(1)
        await expect(item.get_by_test_id("approval-origin")).to_have_text(
            "· Requested by Claude Desktop via MCP"
        )
        await expect(item).to_contain_text("MCP calls")
        call_id = await item.get_attribute("data-tool-call-id")
        assert call_id is not None
        assert not calling.done()
        await page.screenshot(path=tmp_path / "mcp-approvals.png", full_page=True)
        violations = await axe_violations(page)
        assert not violations, report(violations)

        await item.locator("a.approval-link").click()
        card = tool_call(page, call_id)
        await expect(card.get_by_test_id("card-origin")).to_have_text(
            "Requested by Claude Desktop via MCP"
        )
        await expect(page.get_by_test_id("mcp-record-note")).to_be_visible()
        await expect(page.get_by_test_id("composer-input")).to_be_hidden()
        violations = await axe_violations(page)
        assert not violations, report(violations)
        await card.get_by_test_id("approve").click()

        result = await asyncio.wait_for(calling, WAIT_S)
        assert not result.is_error, text_of(result)
        assert text_of(result) == "Added note #1: buy milk"
        await expect(card.get_by_test_id("tool-status")).to_have_text(STATUS_WORDS["succeeded"])
    assert [text for _id, text in notes(app)] == ["buy milk"]
