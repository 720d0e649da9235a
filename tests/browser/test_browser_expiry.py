"""The expiry countdown in Chromium: time left on a waiting card, the last-minute warning,
and the card after the server closed the call as ``expired``.

The real app (built client + API + offline model + SQLite); every wait is a bounded
Playwright ``expect``. What the page shows is checked against what the server stored.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, Route, expect

from support.live import LiveServer
from support.pages import (
    conversation,
    notes,
    paused_on_one_call,
    start_chat,
    stored_call,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_the_card_shows_the_time_left_with_the_servers_default(
    app: LiveServer, page: Page
) -> None:
    await page.goto("/")
    await start_chat(page, "add a note buy milk")
    card, _call_id = await paused_on_one_call(page)
    expiry = card.get_by_test_id("expiry")
    await expect(expiry).to_have_attribute("data-state", "ok")
    await expect(expiry).to_have_text("Decide within 23 h 59 min")


@pytest.mark.parametrize("app_overrides", [{"approval_timeout_s": 61.5}])
async def test_the_countdown_warns_in_the_last_minute(
    app: LiveServer, page: Page, app_overrides: dict[str, Any], tmp_path: Path
) -> None:
    await page.goto("/")
    await start_chat(page, "add a note buy milk")
    card, _call_id = await paused_on_one_call(page)
    expiry = card.get_by_test_id("expiry")
    await expect(expiry).to_contain_text("Decide within 1 min")
    await expect(expiry).to_have_attribute("data-state", "warn")
    await expect(expiry.get_by_role("alert")).to_have_text("Less than a minute left to decide.")
    await expect(expiry).to_contain_text(" s left")
    await page.screenshot(path=tmp_path / "warning.png", full_page=True)


@pytest.mark.parametrize("app_overrides", [{"approval_timeout_s": 3}])
async def test_an_expired_call_shows_as_not_run_and_the_chat_goes_on(
    app: LiveServer, page: Page, app_overrides: dict[str, Any]
) -> None:
    await page.goto("/")
    conversation_id = await start_chat(page, "add a note buy milk")
    card, call_id = await paused_on_one_call(page)
    await expect(card.get_by_test_id("expiry")).to_have_attribute("data-state", "warn")
    # The server's sweeper closes the call at its deadline; the page follows the stream.
    await expect(card).to_have_attribute("data-status", "expired")
    await expect(card.get_by_test_id("tool-status")).to_have_text("Expired")
    await expect(card.get_by_test_id("tool-error")).to_contain_text("Nobody decided in time")
    await expect(card.get_by_test_id("expiry")).to_have_count(0)
    await expect(card.get_by_test_id("approve")).to_have_count(0)
    await expect(conversation(page)).to_have_attribute("data-status", "idle")
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["status"] == "expired"
    assert notes(app) == []


async def test_a_decision_on_a_call_cancelled_meanwhile_says_why_after_the_card_goes(
    app: LiveServer, page: Page
) -> None:
    """A refused decision in a chat card (409): the call was cancelled between the page
    showing it and the click. The card goes (nobody decided it), and the row keeps saying why
    the decision was not applied, promising no recorded decision."""
    await page.goto("/")
    conversation_id = await start_chat(page, "add a note buy milk")
    card, call_id = await paused_on_one_call(page)

    async def cancel_first(route: Route) -> None:
        off = await app.client.put("/api/actions/assistant", json={"on": False})
        assert off.status_code == 200, off.text
        await app.idle()
        await route.continue_()

    await page.route("**/decision", cancel_first)
    await card.get_by_test_id("approve").click()
    refused = card.get_by_test_id("decision-not-applied")
    await expect(refused).to_contain_text(
        "Your decision was not applied. Too late: this call was cancelled and did not run."
    )
    await expect(card).to_have_attribute("data-status", "cancelled")
    await expect(card.get_by_test_id("approve")).to_have_count(0)
    await expect(refused).not_to_contain_text("The recorded decision is shown")
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["status"] == "cancelled"
    assert notes(app) == []
