"""Accessibility checks in Chromium with axe-core (issue 6).

axe-core is pinned in ``client-web/package.json`` (devDependency); its ``axe.min.js`` is
injected into the page and run on the chat page with a waiting card, with a review modal open,
on the Approvals view and on a 390 px screen with the drawer open. No serious or critical
violation may remain.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect

from support.a11y import axe_violations, report
from support.live import LiveServer
from support.pages import conversation

pytestmark = pytest.mark.asyncio(loop_scope="session")

CARDLAB = Path(__file__).parent / "skills"


@pytest.fixture
def app_overrides() -> dict[str, Any]:
    return {"skills_path": [CARDLAB]}


async def paused(app: LiveServer, page: Page, text: str) -> str:
    conversation_id = await app.new_conversation()
    await app.say(conversation_id, text)
    await app.idle()
    await page.goto(f"/#/c/{conversation_id}")
    await expect(conversation(page)).to_have_attribute("data-status", "paused")
    return conversation_id


async def test_chat_page_with_a_waiting_card_has_no_serious_violations(
    app: LiveServer, page: Page
) -> None:
    await paused(app, page, "add a note one and add a note two")
    await expect(
        page.locator('[data-testid="tool-call"][data-status="interrupted"]')
    ).to_have_count(2)
    await page.get_by_test_id("log-toggle").click()
    await expect(page.get_by_role("log")).to_be_visible()
    violations = await axe_violations(page)
    assert violations == [], report(violations)


async def test_review_modal_open_has_no_serious_violations(app: LiveServer, page: Page) -> None:
    body = "# Plan\n\nA **memo** for the team.\n\n" + "- item\n" * 40
    await paused(app, page, f"use cardlab.memo with {json.dumps({'body': body})}")
    await page.get_by_test_id("markdown-open").click()
    modal = page.get_by_test_id("markdown-modal")
    await expect(modal).to_be_visible()
    violations = await axe_violations(page)
    assert violations == [], report(violations)
    await page.keyboard.press("Escape")
    await expect(modal).to_have_count(0)


async def test_full_text_modal_open_has_no_serious_violations(app: LiveServer, page: Page) -> None:
    conversation_id = await app.new_conversation()
    await app.say(conversation_id, 'use cardlab.dump with {"kilobytes": 64}')
    await app.idle()
    await page.goto(f"/#/c/{conversation_id}")
    await page.get_by_test_id("show-all").first.click()
    await expect(page.get_by_test_id("full-text-modal")).to_be_visible()
    violations = await axe_violations(page)
    assert violations == [], report(violations)


async def test_approvals_view_and_small_screen_drawer_have_no_serious_violations(
    app: LiveServer, page: Page
) -> None:
    await paused(app, page, "add a note axe")
    await page.goto("/#/approvals")
    await expect(page.get_by_test_id("approvals-view")).to_be_visible()
    violations = await axe_violations(page)
    assert violations == [], report(violations)

    await page.set_viewport_size({"width": 390, "height": 844})
    await page.get_by_test_id("menu-button").click()
    await expect(page.locator("#sidebar")).to_be_visible()
    violations = await axe_violations(page)
    assert violations == [], report(violations)
