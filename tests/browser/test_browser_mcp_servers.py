"""The admin page's MCP servers panel in Chromium: a remote server's tools (with the server's own
names and why one is unavailable), Refresh, and a server that went down, said in words."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Page, expect

from support.a11y import axe_violations, report
from support.live import LiveServer
from support.mcp_remote import RemoteMcp, free_port

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def open_app(page: Page) -> None:
    """Load the app and wait until it is usable."""
    await page.goto("/")
    await expect(page.get_by_test_id("new-chat")).to_be_enabled()


@pytest_asyncio.fixture(loop_scope="session")
async def remote(tmp_path: Path) -> AsyncIterator[RemoteMcp]:
    server = RemoteMcp(port=free_port(), log_path=tmp_path / "remote.log")
    await server.start()
    try:
        yield server
    finally:
        server.kill()


@pytest.fixture
def app_overrides(remote: RemoteMcp) -> dict[str, Any]:
    return {"mcp_servers": {"remote": {"url": remote.url, "title": "Test tools"}}}


async def test_admin_sees_remote_tools_refreshes_and_sees_a_server_down(
    app: LiveServer, page: Page, remote: RemoteMcp
) -> None:
    await open_app(page)
    await page.get_by_test_id("admin-link").click()
    panel = page.get_by_test_id("mcp-servers")
    row = panel.locator('[data-testid="mcp-server-row"][data-server="remote"]')
    await expect(row).to_be_visible()
    await row.get_by_test_id("mcp-refresh").click()  # the first listing may still be on its way
    await expect(row).to_have_attribute("data-state", "ready")
    await expect(row).to_contain_text("Connected:")
    await expect(row).to_contain_text("(on the server: “get user”)")
    await expect(row).to_contain_text("Unavailable: Interlock refuses its input JSON Schema")
    violations = await axe_violations(page)  # the whole admin page, not only the panel
    assert not violations, report(violations)

    remote.kill()
    await row.get_by_test_id("mcp-refresh").click()
    await expect(row).to_have_attribute("data-state", "down")
    await expect(row).to_contain_text("Not reachable: nothing answers at its address")
    violations = await axe_violations(page)
    assert not violations, report(violations)
    # An employee open in the editor (its badges, the selected row) reads as well.
    await page.locator('[data-testid="admin-employee"][data-slug="assistant"]').click()
    await expect(page.locator('[data-testid="admin-employee"].active')).to_have_count(1)
    violations = await axe_violations(page)
    assert not violations, report(violations)
