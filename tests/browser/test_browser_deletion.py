"""A conversation deleted in one tab, open in another (Chromium).

The other tab shows the person "This conversation was deleted" in place of the conversation
(no "Connected", no waiting banner, no card to decide), the sidebar drops it, and the
Approvals count no longer counts its waiting call. Every wait is a bounded ``expect``.
"""

from __future__ import annotations

import pytest
from playwright.async_api import BrowserContext, Page, expect

from support.live import LiveServer
from support.pages import conversation

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _paused(app: LiveServer, text: str) -> str:
    conversation_id = await app.new_conversation()
    await app.say(conversation_id, text)
    await app.idle()
    assert (await app.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    return conversation_id


async def test_a_conversation_deleted_in_one_tab_ends_in_the_other(
    app: LiveServer, page: Page, context: BrowserContext
) -> None:
    kept = await _paused(app, "add a note kept")
    doomed = await _paused(app, "add a note doomed")
    other = await context.new_page()
    try:
        for tab in (page, other):
            await tab.goto(f"/#/c/{doomed}")
            await expect(conversation(tab)).to_have_attribute("data-connected", "true")
            await expect(tab.get_by_test_id("waiting-banner")).to_be_visible()
            await expect(tab.get_by_test_id("approvals-count")).to_have_text("2")

        entry = page.locator(f'[data-testid="conversation-entry"][data-conversation-id="{doomed}"]')
        await entry.get_by_test_id("conversation-delete").click()
        await entry.get_by_test_id("conversation-delete-confirm").click()
        await expect(entry).to_have_count(0)

        gone = other.get_by_test_id("conversation-deleted")
        await expect(gone).to_contain_text("This conversation was deleted")
        await expect(other.get_by_test_id("conversation")).to_have_count(0)
        await expect(other.get_by_test_id("waiting-banner")).to_have_count(0)
        await expect(other.get_by_test_id("approve")).to_have_count(0)
        listed = other.locator(
            f'[data-testid="conversation-entry"][data-conversation-id="{doomed}"]'
        )
        await expect(listed).to_have_count(0)
        kept_entry = other.locator(
            f'[data-testid="conversation-entry"][data-conversation-id="{kept}"]'
        )
        await expect(kept_entry).to_have_count(1)
        await expect(other.get_by_test_id("approvals-count")).to_have_text("1")

        await other.get_by_test_id("approvals-link").click()
        await expect(other.get_by_test_id("approval-item")).to_have_count(1)
    finally:
        await other.close()
