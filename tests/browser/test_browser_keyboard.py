"""A card decided with the keyboard alone, and named for a screen reader, in Chromium.

The real app (built client + API + offline model + SQLite) with the test skill folder
(``skills/cardlab``). Every wait is a bounded Playwright ``expect``; what the page did is
checked against what the server stored.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Locator, Page, expect

from support.live import LiveServer
from support.pages import conversation, notes, stored_call, tool_call

pytestmark = pytest.mark.asyncio(loop_scope="session")

CARDLAB = Path(__file__).parent / "skills"
POST = {"headline": "Spring sale", "body": "Line one.\nLine two.", "tags": ["sale", "spring"]}


@pytest.fixture
def app_overrides() -> dict[str, Any]:
    return {"skills_path": [CARDLAB]}


async def waiting_card(app: LiveServer, page: Page, text: str) -> tuple[Locator, str, str]:
    """A conversation paused on one card after ``text``, open in the page."""
    conversation_id = await app.new_conversation()
    await app.say(conversation_id, text)
    await app.idle()
    await page.goto(f"/#/c/{conversation_id}")
    await expect(conversation(page)).to_have_attribute("data-status", "paused")
    card = page.locator('[data-testid="tool-call"][data-status="interrupted"]')
    await expect(card).to_have_count(1)
    call_id = await card.get_attribute("data-tool-call-id")
    assert call_id
    return tool_call(page, call_id), conversation_id, call_id


async def focused_test_id(page: Page) -> str | None:
    return await page.evaluate("() => document.activeElement?.getAttribute('data-testid')")


async def test_the_first_tab_offers_a_skip_past_the_conversation_list(
    app: LiveServer, page: Page
) -> None:
    await waiting_card(app, page, "add a note skip me")
    await page.keyboard.press("Tab")
    skip = page.get_by_test_id("skip-link")
    await expect(skip).to_be_focused()
    await expect(skip).to_be_in_viewport()
    await page.keyboard.press("Enter")
    await expect(conversation(page)).to_be_focused()
    # The next stops are in the conversation, not the sidebar's list.
    await page.keyboard.press("Tab")
    in_main = await page.evaluate("() => !!document.activeElement?.closest('main')")
    assert in_main


async def test_every_button_of_a_waiting_card_says_what_it_decides(
    app: LiveServer, page: Page
) -> None:
    card, _conversation_id, _call_id = await waiting_card(app, page, "add a note buy oat milk")
    subject = "Add a note: “buy oat milk”"
    for name in ("Add note", "Edit", "Reject"):
        await expect(
            card.get_by_role("button", name=f"{name} — {subject}", exact=True)
        ).to_be_visible()


async def test_edit_with_the_keyboard_focuses_the_first_field_and_escape_goes_back(
    app: LiveServer, page: Page
) -> None:
    card, conversation_id, call_id = await waiting_card(
        app, page, f"use cardlab.publish with {json.dumps(POST)}"
    )
    edit = card.get_by_test_id("edit")
    await edit.focus()
    await page.keyboard.press("Enter")
    headline = card.get_by_role("textbox", name="Headline")
    await expect(headline).to_be_focused()
    # The list's glyph buttons have names of words.
    for name in ("Move item 1 down", "Remove item 1", "Move item 2 up", "Remove item 2"):
        await expect(card.get_by_role("button", name=name, exact=True)).to_be_visible()
    await expect(card.get_by_role("button", name="Add an item", exact=True)).to_be_visible()

    await page.keyboard.press("Escape")
    await expect(card.get_by_test_id("edit-submit")).to_have_count(0)
    await expect(edit).to_be_focused()
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["status"] == "interrupted"


async def test_reject_with_the_keyboard_enter_sends_the_reason(app: LiveServer, page: Page) -> None:
    card, conversation_id, call_id = await waiting_card(app, page, "add a note never mind")
    await card.get_by_test_id("reject").focus()
    await page.keyboard.press("Enter")
    reason = card.get_by_test_id("reject-reason")
    await expect(reason).to_be_focused()
    await expect(reason).to_have_accessible_description(
        "Enter rejects; Shift+Enter starts a new line."
    )
    await page.keyboard.type("not now")
    await page.keyboard.press("Shift+Enter")
    await page.keyboard.type("maybe later")
    await page.keyboard.press("Enter")
    await expect(card).to_have_attribute("data-status", "rejected")
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["decision"]["type"] == "reject"
    assert stored["decision"]["message"] == "not now\nmaybe later"
    assert notes(app) == []


async def test_escape_in_the_reason_goes_back_to_the_reject_button(
    app: LiveServer, page: Page
) -> None:
    card, _conversation_id, _call_id = await waiting_card(app, page, "add a note keep me")
    reject = card.get_by_test_id("reject")
    await reject.click()
    await expect(card.get_by_test_id("reject-reason")).to_be_focused()
    await page.keyboard.press("Escape")
    await expect(card.get_by_test_id("reject-reason")).to_have_count(0)
    await expect(reject).to_be_focused()


async def test_on_a_phone_a_changed_field_shows_its_label_above_the_change(
    app: LiveServer, page: Page
) -> None:
    _card, _conversation_id, call_id = await waiting_card(
        app, page, f"use cardlab.publish with {json.dumps(POST)}"
    )
    edited = {**POST, "body": "Line one.\nLine 2 changed."}
    response = await app.decide(call_id, type="edit", args=edited)
    assert response.status_code == 200, response.text
    await page.set_viewport_size({"width": 360, "height": 800})
    field = page.locator('[data-testid="diff-field"][data-key="body"]')
    await expect(field).to_be_visible()
    label = await field.locator("dt").bounding_box()
    change = await field.locator("dd").bounding_box()
    assert label and change
    assert change["y"] >= label["y"] + label["height"] - 1  # below, not beside
    assert change["width"] > 250  # the change gets the card's width, not a sliver


async def test_escape_from_the_document_source_keeps_the_edits_until_undone(
    app: LiveServer, page: Page
) -> None:
    document = {"title": "Trip", "markdown": "# Trip\n\n- Lisbon\n"}
    card, conversation_id, call_id = await waiting_card(
        app, page, f"use documents.write with {json.dumps(document)}"
    )
    review = card.get_by_test_id("document-review")
    await review.click()
    modal = page.get_by_test_id("document-modal")
    await modal.get_by_test_id("document-tab-source").click()
    source = modal.get_by_test_id("document-source")
    await source.fill(document["markdown"] + "- Porto\n")

    # Escape closes the modal without deciding, and without losing what was typed.
    await page.keyboard.press("Escape")
    await expect(modal).to_have_count(0)
    await expect(card.get_by_test_id("document-edits-kept")).to_be_visible()
    assert (await stored_call(app, conversation_id, call_id))["decision"] is None
    await review.click()
    await modal.get_by_test_id("document-tab-source").click()
    await expect(source).to_have_value(document["markdown"] + "- Porto\n")
    await expect(modal.get_by_test_id("document-approve")).to_have_text("Save edits and approve")

    # Undo puts the proposal back; the card no longer says edits are waiting.
    await modal.get_by_test_id("document-undo-edits").click()
    await expect(source).to_have_value(document["markdown"])
    await expect(modal.get_by_test_id("document-approve")).not_to_have_text(
        "Save edits and approve"
    )
    await page.keyboard.press("Escape")
    await expect(card.get_by_test_id("document-edits-kept")).to_have_count(0)


async def test_a_touch_phone_is_not_offered_the_keyboard_shortcut(
    app: LiveServer, browser: Browser, page: Page
) -> None:
    _card, conversation_id, _call_id = await waiting_card(app, page, "add a note on the go")
    await expect(page.get_by_test_id("jump-to-decision")).to_have_text(
        "Go to the decision (Alt+J)", use_inner_text=True
    )
    phone = await browser.new_context(
        base_url=app.url, viewport={"width": 360, "height": 740}, has_touch=True, is_mobile=True
    )
    try:
        tab = await phone.new_page()
        await tab.goto(f"/#/c/{conversation_id}")
        jump = tab.get_by_test_id("jump-to-decision")
        await expect(jump).to_have_text("Go to the decision", use_inner_text=True)
        await expect(jump).to_have_attribute("aria-keyshortcuts", "Alt+J")
    finally:
        await phone.close()
