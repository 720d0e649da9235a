"""Names and titles from the server read ``[U+202E]`` in Chromium, as the README says: found in
a tryout, the Admin page showed a remote MCP server titled "\u202eRemote" as "etomeR"."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page, expect

from support.live import LiveServer
from support.mcp_remote import free_port

pytestmark = pytest.mark.asyncio(loop_scope="session")

RLO = "\u202e"


@pytest.fixture
def app_overrides() -> dict[str, Any]:
    # Nothing answers at this address: the server is listed, down, with its title.
    url = f"http://127.0.0.1:{free_port()}/mcp"
    return {"mcp_servers": {"remote": {"url": url, "title": f"{RLO}Remote"}}}


async def test_the_admin_page_and_the_picker_reveal_hidden_characters_in_names(
    app: LiveServer, page: Page
) -> None:
    created = await app.client.post(
        "/api/employees",
        json={
            "slug": "gee",
            "name": "Gee",
            "title": "Writer",
            "about": f"Writes {RLO}notes.",
            "system_prompt": "You are Gee.",
        },
    )
    assert created.status_code == 201, created.text

    await page.goto("/#/admin")
    row = page.locator('[data-testid="mcp-server-row"][data-server="remote"]')
    await expect(row.locator("strong").first).to_have_text("[U+202E]Remote")
    assert RLO not in await page.locator("main").inner_text()

    await page.goto("/")
    await page.get_by_test_id("new-chat").click()
    picker = page.get_by_test_id("employee-picker")
    await expect(picker).to_contain_text("Writes [U+202E]notes.")
    assert RLO not in await picker.inner_text()
