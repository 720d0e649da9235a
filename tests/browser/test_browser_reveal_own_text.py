"""Found in QA: an RTL override (U+202E) showed raw in the person's own message bubble and in
the card's Edit form, so "from \u202eHal conv" read "from vnoc laH" while the card's sentence
said "from [U+202E]Hal conv". Both read ``[U+202E]`` now; the Edit field keeps the value as
written (it is what is sent back) and says under it how it reads; a conversation's title keeps
its override and shows it the same way."""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from support.live import LiveServer
from support.pages import conversation

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_the_persons_own_message_edit_field_and_title_show_an_override(
    app: LiveServer, page: Page
) -> None:
    conversation_id = await app.new_conversation()
    await app.say(conversation_id, "add a note from \u202eHal conv")
    await app.idle()
    renamed = await app.client.patch(
        f"/api/conversations/{conversation_id}", json={"title": "Invoice \u202egnp.exe"}
    )
    assert renamed.json()["title"] == "Invoice \u202egnp.exe"
    await page.goto(f"/#/c/{conversation_id}")
    await expect(conversation(page)).to_have_attribute("data-status", "paused")

    mine = page.locator('[data-testid="message"][data-role="user"]')
    await expect(mine).to_have_text("add a note from [U+202E]Hal conv")
    await expect(page.get_by_test_id("conversation-title")).to_have_text("Invoice [U+202E]gnp.exe")

    row = page.locator('[data-testid="tool-call"][data-status="interrupted"]')
    call_id = await row.get_attribute("data-tool-call-id")
    await row.get_by_test_id("edit").click()
    field = row.locator(f"#edit_{call_id}_text")
    await expect(field).to_have_value("from \u202eHal conv")  # sent back as written
    await expect(row.get_by_test_id("hidden-chars")).to_have_text(
        "This text holds hidden characters that can change how it reads. "
        "As written: “from [U+202E]Hal conv”"
    )
    await field.fill("from Hal")
    await expect(row.get_by_test_id("hidden-chars")).to_have_count(0)
