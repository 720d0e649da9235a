"""Cards that confirm, in Chromium (issue 6): the modal (focus kept, closed without deciding,
held while deciding), the delete card naming its note, the documents modal, and hostile text
in a confirmation staying inert.

The app runs with the offline model and a test-only skill folder (``skills/cardlab``);
conversations are started through the API and then opened in the page; every wait is a bounded
Playwright ``expect``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect

from support.card_pages import CARDLAB, shot, start, use
from support.live import LiveServer
from support.pages import (
    notes,
    only_waiting,
    open_conversation,
    stored_call,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.fixture
def app_overrides() -> dict[str, Any]:
    """The app serves the test-only skill folder too."""
    return {"skills_path": [CARDLAB]}


async def test_the_modal_traps_focus_closes_without_deciding_and_holds_while_deciding(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    memo = "# Memo\n\nHello **team**. <script>window.__pwned=1</script> [ok](https://example.org)"
    conversation_id = await start(app, page, use("cardlab.memo", {"body": memo}))
    row, call_id = await only_waiting(page)
    opener = row.get_by_test_id("markdown-open")
    modal = page.get_by_test_id("markdown-modal")

    # Focus lands on Cancel; Esc closes without deciding and focus returns to the opener.
    await opener.click()
    await expect(modal).to_be_visible()
    await expect(modal.get_by_test_id("modal-cancel")).to_be_focused()
    await expect(modal.locator(".markdown strong")).to_have_text("team")
    await expect(modal.locator("script")).to_have_count(0)
    await page.keyboard.press("Escape")
    await expect(modal).to_have_count(0)
    await expect(opener).to_be_focused()

    # Tab stays inside the dialog (it wraps from the last control to the first).
    await opener.click()
    await expect(modal.get_by_test_id("modal-cancel")).to_be_focused()
    for _ in range(8):
        await page.keyboard.press("Tab")
        assert await modal.evaluate("d => d.contains(document.activeElement)")

    # The backdrop and Cancel close it too; nothing was decided.
    box = await modal.bounding_box()
    assert box is not None
    await page.mouse.click(box["x"] + box["width"] + 5, box["y"] + 5)
    await expect(modal).to_have_count(0)
    await opener.click()
    await modal.get_by_test_id("modal-cancel").click()
    await expect(modal).to_have_count(0)
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["decision"] is None

    # While the decision is in flight the modal cannot close and its button shows progress.
    held: list[Any] = []

    async def hold(route: Any) -> None:
        held.append(route)

    await page.route(f"**/api/tool-calls/{call_id}/decision", hold)
    await opener.click()
    await modal.get_by_test_id("approve").click()
    await expect(modal.get_by_test_id("approve")).to_be_disabled()
    await expect(modal.get_by_test_id("approve").locator(".spinner")).to_have_count(1)
    await expect(modal.get_by_test_id("modal-cancel")).to_be_disabled()
    await page.keyboard.press("Escape")
    await expect(modal).to_be_visible()
    await shot(page, tmp_path, "modal-busy.png")
    assert len(held) == 1
    await held[0].continue_()
    await page.unroute(f"**/api/tool-calls/{call_id}/decision")
    await expect(modal).to_have_count(0)
    await expect(row).to_have_attribute("data-status", "succeeded")
    await expect(row.get_by_test_id("decision")).to_have_text("Approved")


async def test_the_delete_card_names_the_note_and_its_button_says_delete(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    conversation_id = await app.new_conversation()
    await app.say(conversation_id, "add a note buy milk")
    await app.idle()
    [added] = (await app.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    assert (await app.decide(added["id"], type="approve")).status_code == 200
    await app.idle()
    [(note_id, _)] = notes(app)
    await app.say(conversation_id, f"delete note {note_id}")
    await app.idle()
    await open_conversation(page, conversation_id)

    row, call_id = await only_waiting(page)
    summary = row.get_by_test_id("card-summary")
    await expect(summary).to_contain_text("buy milk")
    await expect(summary).to_contain_text(f"#{note_id}")
    await expect(row.locator(".card")).to_contain_text("deletes data")
    action = row.get_by_test_id("approve")
    await expect(action).to_have_text("Delete")
    await expect(action).to_have_class(re.compile(r"\bdanger\b"))
    # The focus is on Reject, never on the destructive action.
    await expect(row.get_by_test_id("reject")).to_be_focused()
    await expect(row.get_by_test_id("json-view")).to_have_count(0)
    await shot(page, tmp_path, "delete-card.png", row)

    await action.click()
    await expect(row).to_have_attribute("data-status", "succeeded")
    await expect(row.get_by_test_id("decision")).to_have_text("Approved")
    await expect(row.get_by_test_id("decision-by")).to_contain_text("by ")
    assert notes(app) == []
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["decision"]["type"] == "approve"


async def test_the_documents_modal_opens_edits_and_approves_and_esc_decides_nothing(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    conversation_id = await app.new_conversation()
    first = "# Plan\n\n- one\n- two\n"
    await app.say(conversation_id, use("documents.write", {"title": "Plan", "markdown": first}))
    await app.idle()
    [written] = (await app.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    assert (await app.decide(written["id"], type="approve")).status_code == 200
    await app.idle()
    second = (
        "# Plan\n\n- one\n- two, revised\n"
        "- three <script>window.__pwned=1</script> [x](javascript:alert(1))\n"
    )
    await app.say(conversation_id, use("documents.write", {"title": "Plan", "markdown": second}))
    await app.idle()
    await open_conversation(page, conversation_id)

    row, call_id = await only_waiting(page)
    await expect(row.get_by_test_id("card-summary")).to_contain_text("Plan")
    review = row.get_by_test_id("document-review")
    await review.click()
    modal = page.get_by_test_id("document-modal")
    await expect(modal).to_be_visible()
    await expect(modal.get_by_test_id("modal-cancel")).to_be_focused()
    preview = modal.get_by_test_id("document-panel-preview")
    await expect(preview.locator("li")).to_have_count(3)
    await expect(preview.locator("script")).to_have_count(0)
    await expect(preview.locator('a[href^="javascript"]')).to_have_count(0)

    # Esc closes it without deciding; the focus goes back to Review.
    await page.keyboard.press("Escape")
    await expect(modal).to_have_count(0)
    await expect(review).to_be_focused()
    assert (await stored_call(app, conversation_id, call_id))["decision"] is None

    # The diff against the stored document.
    await review.click()
    await modal.get_by_test_id("document-tab-changes").click()
    diff = modal.get_by_test_id("text-diff")
    await expect(diff.locator('[data-kind="removed"]')).to_have_count(1)
    await expect(diff.locator('[data-kind="removed"]')).to_contain_text("- two")
    await expect(diff.locator('[data-kind="added"]').first).to_contain_text("- two, revised")
    await shot(page, tmp_path, "documents-modal.png")

    # Edit the source: the button says so, and the edited text is what runs.
    await modal.get_by_test_id("document-tab-source").click()
    source = modal.get_by_test_id("document-source")
    await expect(source).to_have_value(second)
    await source.fill(second + "- four\n")
    approve = modal.get_by_test_id("document-approve")
    await expect(approve).to_have_text("Save edits and approve")
    await modal.get_by_test_id("document-tab-preview").click()
    await expect(preview.locator("li")).to_have_count(4)
    await approve.click()
    await expect(modal).to_have_count(0)
    await expect(row).to_have_attribute("data-status", "succeeded")
    await expect(row.get_by_test_id("decision")).to_have_text("Edited and approved")
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["executed_args"]["markdown"] == second + "- four\n"
    assert await page.evaluate("window.__pwned") is None


async def test_hostile_text_in_a_confirmation_summary_and_detail_stays_inert(
    app: LiveServer, page: Page
) -> None:
    hostile = '<img src=x onerror="window.__pwned=1"> <a href="javascript:alert(1)">go</a>'
    await start(app, page, f"add a note {hostile}")
    row, _ = await only_waiting(page)
    summary = row.get_by_test_id("card-summary")
    await expect(summary).to_contain_text('<img src=x onerror="window.__pwned=1">')
    await row.get_by_test_id("card-details").click()
    await expect(row.get_by_test_id("card-detail")).to_contain_text("<a href=")
    await expect(row.locator("img, a[href^='javascript']")).to_have_count(0)
    await row.get_by_test_id("approve").click()
    await expect(row).to_have_attribute("data-status", "succeeded")
    await expect(page.locator("img, a[href^='javascript']")).to_have_count(0)
    assert await page.evaluate("window.__pwned") is None
