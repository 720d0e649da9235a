"""Permissions in Chromium: "don't ask again" on a card, the Permissions page, AI actions.

The real app (built client + API + offline model + SQLite); every wait is a bounded
Playwright ``expect``. What the page shows is checked against what the server stored.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Locator, Page, expect

from support.live import LiveServer
from support.pages import (
    conversation,
    notes,
    open_app,
    paused_on_one_call,
    send,
    start_chat,
    stored_call,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _waiting_card(page: Page) -> Locator:
    """The one call waiting for a decision (the run paused on it)."""
    row, _call_id = await paused_on_one_call(page)
    return row


async def _idle(page: Page) -> None:
    await expect(conversation(page)).to_have_attribute("data-status", "idle")
    await expect(page.get_by_test_id("composer-input")).to_be_enabled()


async def _approve_remembering(page: Page, row: Locator, scope: str) -> None:
    await row.get_by_test_id("remember").check()
    await row.get_by_test_id(f"remember-scope-{scope}").check()
    await expect(row.get_by_test_id("remember-summary")).to_contain_text("without asking")
    await row.get_by_test_id("approve").click()
    await expect(row).to_have_attribute("data-status", "succeeded")
    await _idle(page)


async def test_dont_ask_again_then_no_card_on_the_next_call(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    await open_app(page)
    conversation_id = await start_chat(page, "add a note buy milk")
    first = await _waiting_card(page)
    await expect(first.get_by_test_id("remember-choice")).to_be_visible()
    await _approve_remembering(page, first, "conversation")
    await expect(first.get_by_test_id("remember-done")).to_contain_text(
        "will now run without asking in this conversation for 7 days"
    )

    (grant,) = (await app.client.get("/api/grants")).json()
    assert grant["tool"] == "notes.add" and grant["conversation_id"] == conversation_id

    await send(page, "add a note call the vet")
    await _idle(page)
    rows = page.locator('[data-testid="tool-call"]')
    await expect(rows).to_have_count(2)
    second = rows.last
    await expect(second).to_have_attribute("data-status", "succeeded")
    await expect(second.get_by_test_id("grant-note")).to_have_attribute(
        "data-grant-id", grant["id"]
    )
    await expect(second.get_by_test_id("approve")).to_have_count(0)
    await expect(
        page.locator('[data-testid="tool-call"][data-status="interrupted"]')
    ).to_have_count(0)
    await page.screenshot(path=tmp_path / "granted.png", full_page=True)

    second_id = await second.get_attribute("data-tool-call-id")
    assert second_id
    stored = await stored_call(app, conversation_id, second_id)
    assert stored["grant_id"] == grant["id"] and stored["decision"] is None
    assert [text for _, text in notes(app)] == ["buy milk", "call the vet"]


async def test_the_permissions_page_revokes_and_switches_actions_off(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    await open_app(page)
    conversation_id = await start_chat(page, "add a note buy milk")
    await _approve_remembering(page, await _waiting_card(page), "employee")

    await page.get_by_test_id("permissions-link").click()
    await expect(page.get_by_test_id("permissions-page")).to_be_visible()
    row = page.get_by_test_id("grant-row")
    await expect(row).to_have_count(1)
    await expect(row).to_contain_text("Add a note")
    await expect(row).to_contain_text("All conversations with Ada")
    await expect(row).to_contain_text("Any details")
    await expect(row).to_contain_text("Not used yet")
    await page.screenshot(path=tmp_path / "permissions.png", full_page=True)

    await row.get_by_test_id("revoke-grant").click()
    await expect(row).to_have_count(0)
    await expect(page.get_by_test_id("grants-empty")).to_be_visible()
    await expect(page.get_by_test_id("permissions-notice")).to_contain_text("will ask again")
    assert (await app.client.get("/api/grants")).json() == []

    # AI actions off for Ada: confirmed in a dialog; the server has it off.
    ada = page.locator('[data-testid="actions-row"][data-employee="assistant"]')
    await expect(ada.get_by_test_id("actions-state")).to_contain_text("On until")
    await ada.get_by_test_id("actions-toggle").click()
    await page.get_by_test_id("actions-off-confirm").click()
    await expect(ada.get_by_test_id("actions-state")).to_contain_text("Off")
    await expect(ada.get_by_test_id("actions-toggle")).to_have_text("Turn on for 7 days")
    states = {a["employee"]: a for a in (await app.client.get("/api/actions")).json()}
    assert states["assistant"]["on"] is False

    # In the conversation a banner says so and turns them back on.
    await page.goto(f"/#/c/{conversation_id}")
    await expect(conversation(page)).to_have_attribute("data-conversation-id", conversation_id)
    banner = page.get_by_test_id("actions-banner")
    await expect(banner).to_contain_text("AI actions for Ada are off.")
    await page.screenshot(path=tmp_path / "actions-off.png", full_page=True)
    await banner.get_by_test_id("actions-banner-on").click()
    await expect(banner).to_have_count(0)
    states = {a["employee"]: a for a in (await app.client.get("/api/actions")).json()}
    assert states["assistant"]["on"] is True

    # Revoked: the next call asks again.
    await send(page, "add a note call the vet")
    card = await _waiting_card(page)
    await expect(card.get_by_test_id("approve")).to_be_visible()
    await expect(card.get_by_test_id("grant-note")).to_have_count(0)
