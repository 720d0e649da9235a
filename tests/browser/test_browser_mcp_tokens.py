"""The "Connect an MCP client" section in Chromium: create an MCP token (shown once, in a
configuration to copy), see it used, revoke it; each step checked against the server."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Page, expect

from support.live import LiveServer

pytestmark = pytest.mark.asyncio(loop_scope="session")

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


async def test_create_copy_and_revoke_an_mcp_token(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    await page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    await page.goto("/#/permissions")
    section = page.get_by_test_id("mcp-tokens")
    await expect(section.get_by_role("heading", name="Connect an MCP client")).to_be_visible()
    await expect(section.get_by_test_id("mcp-tokens-empty")).to_be_visible()
    await expect(section.get_by_test_id("mcp-create")).to_be_disabled()

    await section.get_by_test_id("mcp-token-name").fill("Claude Desktop")
    await section.get_by_test_id("mcp-create").click()
    created = section.get_by_test_id("mcp-created")
    await expect(created).to_contain_text("shown only this once")
    snippet = section.get_by_test_id("mcp-snippet")
    await expect(snippet).to_contain_text("Bearer ilk_mcp_")
    config = json.loads(await snippet.inner_text())
    server = config["mcpServers"]["interlock"]
    assert server["url"] == f"{app.url}/mcp?employee=assistant"
    token = server["headers"]["Authorization"].removeprefix("Bearer ")

    await section.get_by_test_id("mcp-copy").click()
    await expect(section.get_by_test_id("mcp-copied")).to_have_text("Copied to the clipboard.")
    copied = await page.evaluate("navigator.clipboard.readText()")
    assert json.loads(copied) == config
    await page.screenshot(path=tmp_path / "mcp-token-created.png", full_page=True)

    # The token works at /mcp and nowhere else.
    agent = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=app.url, headers=agent, timeout=10) as http:
        assert (await http.post("/mcp", json=PING)).status_code != 401
        refused = await http.get("/api/me")
        assert refused.status_code == 403 and refused.json()["error"]["code"] == "token_scope"

    await section.get_by_test_id("mcp-done").click()
    await expect(created).to_have_count(0)
    await page.reload()
    row = section.get_by_test_id("mcp-token-row")
    await expect(row).to_have_count(1)
    await expect(row).to_contain_text("Claude Desktop")
    await expect(row).to_contain_text("Last used today")
    await expect(row.get_by_test_id("mcp-token-status")).to_have_text("Works")
    assert token not in await page.content()

    await row.get_by_test_id("mcp-revoke").click()
    await expect(section.get_by_test_id("mcp-notice")).to_have_text(
        "“Claude Desktop” no longer works: its next request is refused."
    )
    await expect(row).to_have_attribute("data-revoked", "true")
    await expect(row.get_by_test_id("mcp-token-status")).to_contain_text("Revoked today")
    await expect(row.get_by_test_id("mcp-revoke")).to_have_count(0)
    async with httpx.AsyncClient(base_url=app.url, headers=agent, timeout=10) as http:
        assert (await http.post("/mcp", json=PING)).status_code == 401
    [listed] = (await app.client.get("/api/tokens")).json()
    assert listed["revoked_at"] is not None
