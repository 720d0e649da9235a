"""The web client end to end in Chromium: ask, decide on the card, see the call resume.

Each test drives the real app (built ``client-web/dist`` + API + offline model + SQLite) and
checks both what the page shows and what the server stored. Every wait is a bounded
Playwright ``expect``; no sleeps. One screenshot per flow lands in the test's ``tmp_path``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Locator, Page, expect

from support.live import LiveServer
from support.pages import (
    conversation,
    finished,
    messages,
    new_chat,
    notes,
    open_app,
    open_conversation_id,
    paused_on_one_call,
    send,
    sidebar_item,
    start_chat,
    stored_call,
    tool_call,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")

CAT_REQUEST = "Give me ideas for a name for my cat"
CAT_NAMES = ["Miso", "Pixel", "Juniper", "Biscuit"]


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


async def paused_call(page: Page, name_hint: str | None = None) -> Locator:
    """Wait for the run to pause on one call; return that call's row (by its id)."""
    row, _call_id = await paused_on_one_call(page)
    if name_hint:
        await expect(row.locator(".tool-title")).to_contain_text(name_hint)
    return row


async def call_id_of(row: Locator) -> str:
    call_id = await row.get_attribute("data-tool-call-id")
    assert call_id
    return call_id


async def expect_card_closed(row: Locator) -> None:
    """A decided card offers no decision any more."""
    for test_id in ("approve", "edit", "reject", "edit-submit", "reject-confirm"):
        await expect(row.get_by_test_id(test_id)).to_have_count(0)


# --------------------------------------------------------------------------------------------
# Flows
# --------------------------------------------------------------------------------------------


async def test_choice_card_click_resumes_and_the_choice_survives_a_reload(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    await open_app(page)
    await new_chat(page)

    # The employee's starter prompt is this very request; clicking it sends it (and stores
    # the conversation, which only exists from its first message on).
    starter = page.get_by_test_id("starter-prompt").filter(has_text=CAT_REQUEST)
    await starter.click()
    await expect(messages(page, "user").last).to_have_text(CAT_REQUEST)
    conversation_id = await open_conversation_id(page)
    await expect(page.get_by_test_id("starter-prompt")).to_have_count(0)

    row = await paused_call(page)
    options = row.get_by_test_id("choice-option")
    await expect(options).to_have_text(CAT_NAMES)
    for index in range(len(CAT_NAMES)):
        await expect(options.nth(index)).to_be_enabled()
        await expect(options.nth(index)).to_have_attribute("aria-pressed", "false")

    await options.filter(has_text="Pixel").click()

    await finished(page, row, "succeeded")
    answer = messages(page, "assistant").last
    await expect(answer).to_contain_text("Great choice: Pixel.")
    await expect(answer.locator("strong")).to_have_text("Pixel")  # markdown rendered
    await expect(sidebar_item(page, conversation_id)).to_contain_text(CAT_REQUEST)
    await page.screenshot(path=tmp_path / "choice.png", full_page=True)

    stored = await stored_call(app, conversation_id, await call_id_of(row))
    assert stored["status"] == "succeeded"
    assert stored["executed_args"]["option"] == "Pixel"
    assert stored["decision"]["type"] == "edit"

    async def expect_choice_recorded() -> None:
        decided = tool_call(page, stored["id"])
        buttons = decided.get_by_test_id("choice-option")
        await expect(buttons).to_have_text(CAT_NAMES)
        chosen = buttons.filter(has_text="Pixel")
        await expect(chosen).to_have_attribute("aria-pressed", "true")
        await expect(chosen).to_have_attribute("data-chosen", "true")
        await expect(
            decided.locator('[data-testid="choice-option"][aria-pressed="true"]')
        ).to_have_count(1)
        for index in range(len(CAT_NAMES)):
            await expect(buttons.nth(index)).to_be_disabled()
        await expect(decided.get_by_test_id("decision")).to_have_text("Chose “Pixel”")
        await expect(messages(page, "assistant").last).to_contain_text("Great choice: Pixel.")

    await page.reload()
    await expect(conversation(page)).to_have_attribute("data-conversation-id", conversation_id)
    await expect_choice_recorded()

    # A fresh load without the conversation in the URL, then reopen it from the sidebar.
    await open_app(page)
    await expect(conversation(page)).to_have_count(0)
    await sidebar_item(page, conversation_id).click()
    await expect(conversation(page)).to_have_attribute("data-conversation-id", conversation_id)
    await expect_choice_recorded()

    # The audit says it the same way: the person chose Pixel (a pick, not "Edited, then approved").
    await page.get_by_test_id("audit-link").click()
    record = page.locator('[data-testid="audit-row"][data-tool="suggestions"]')
    await expect(record).to_have_count(1)
    await expect(record).to_have_attribute("data-outcome", "picked")
    await expect(record.get_by_test_id("audit-outcome")).to_have_text("Chose “Pixel”")


async def test_invalid_edit_shows_field_error_then_valid_edit_runs_edited_args(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    await open_app(page)
    conversation_id = await start_chat(page, "add a note buy milk")

    row = await paused_call(page, "Add a note")
    call_id = await call_id_of(row)
    await expect(row.locator(".card")).to_contain_text("buy milk")
    await row.get_by_test_id("edit").click()
    field = row.locator(f"#edit_{call_id}_text")
    await expect(field).to_have_value("buy milk")

    decision_posts: list[str] = []
    page.on(
        "request",
        lambda r: decision_posts.append(r.url) if r.url.endswith("/decision") else None,
    )

    # Emptied: the browser's own check of the required field stops it; nothing is sent.
    await field.fill("")
    await row.get_by_test_id("edit-submit").click()
    assert await field.evaluate("el => el.validity.valueMissing") is True
    await expect(row.get_by_test_id("field-error")).to_have_count(0)
    await expect(row).to_have_attribute("data-status", "interrupted")
    assert decision_posts == []

    # Only spaces: the server's schema ("pattern": "\\S") rejects it with 422 invalid_args.
    await field.fill("   ")
    await row.get_by_test_id("edit-submit").click()
    error = row.get_by_test_id("field-error")
    await expect(error).to_have_count(1)
    await expect(error).to_have_attribute("data-path", "text")
    await expect(error).to_have_attribute("data-rule", "pattern")
    await page.screenshot(path=tmp_path / "edit-invalid.png", full_page=True)

    # The card stays live: still waiting, no decision recorded, the form still usable.
    await expect(row).to_have_attribute("data-status", "interrupted")
    await expect(row.get_by_test_id("decision")).to_have_count(0)
    await expect(row.get_by_test_id("edit-submit")).to_be_enabled()
    await expect(conversation(page)).to_have_attribute("data-status", "paused")
    pending = await app.client.get(f"/api/conversations/{conversation_id}/pending")
    assert [c["id"] for c in pending.json()] == [call_id]
    assert notes(app) == []

    await field.fill("buy oat milk")
    await row.get_by_test_id("edit-submit").click()

    await finished(page, row, "succeeded")
    await expect(row.get_by_test_id("field-error")).to_have_count(0)
    await expect(row.get_by_test_id("decision")).to_have_text("Edited and approved")
    await expect(row.get_by_test_id("diff-before")).to_have_text("buy milk")
    await expect(row.get_by_test_id("diff-after")).to_have_text("buy oat milk")
    await expect_card_closed(row)
    await expect(messages(page, "assistant").last).to_contain_text("“buy oat milk”")
    await page.screenshot(path=tmp_path / "edit-done.png", full_page=True)

    assert len(decision_posts) == 2, decision_posts  # spaces (422), then the valid edit
    assert [text for _, text in notes(app)] == ["buy oat milk"]
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["proposed_args"] == {"text": "buy milk"}
    assert stored["executed_args"] == {"text": "buy oat milk"}
    assert stored["decision"]["type"] == "edit"
    assert stored["decision"]["args"] == {"text": "buy oat milk"}

    # After a reload the card is closed and shows the decision and the executed args.
    await page.reload()
    row = tool_call(page, call_id)
    await expect(row).to_have_attribute("data-status", "succeeded")
    await expect(row.get_by_test_id("decision")).to_have_text("Edited and approved")
    await expect(row.get_by_test_id("diff-before")).to_have_text("buy milk")
    await expect(row.get_by_test_id("diff-after")).to_have_text("buy oat milk")
    await expect_card_closed(row)


async def test_reject_with_reason_deletes_nothing_and_the_reply_acknowledges_it(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    await open_app(page)
    # First a note, approved as proposed.
    conversation_id = await start_chat(page, "add a note call the vet")
    added = await paused_call(page, "Add a note")
    await added.get_by_test_id("approve").click()
    await finished(page, added, "succeeded")
    await expect(added.get_by_test_id("decision")).to_have_text("Approved")
    await expect_card_closed(added)
    [(note_id, text)] = notes(app)
    assert text == "call the vet"
    await expect(messages(page, "assistant").last).to_contain_text(
        f"Done — I added note #{note_id}: “call the vet”."
    )

    # Then its deletion, rejected with a reason.
    await send(page, f"delete note {note_id}")
    row = await paused_call(page, "Delete a note")
    call_id = await call_id_of(row)
    await expect(row.locator(".card")).to_contain_text(str(note_id))

    # A reload while paused keeps the card live.
    await page.reload()
    await expect(conversation(page)).to_have_attribute("data-status", "paused")
    row = tool_call(page, call_id)
    await expect(row).to_have_attribute("data-status", "interrupted")
    await expect(row.get_by_test_id("approve")).to_be_enabled()
    await row.get_by_test_id("reject").click()
    await row.get_by_test_id("reject-reason").fill("I still need it")
    await row.get_by_test_id("reject-confirm").click()

    await finished(page, row, "rejected")
    await expect(row.get_by_test_id("decision")).to_have_text("Rejected: I still need it")
    await expect_card_closed(row)
    reply = messages(page, "assistant").last
    await expect(reply).to_contain_text("I did not delete the note.")
    await expect(reply).to_contain_text("You said: I still need it.")
    await expect(reply).to_contain_text("Nothing was done.")
    await page.screenshot(path=tmp_path / "reject.png", full_page=True)

    assert notes(app) == [(note_id, "call the vet")]
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["status"] == "rejected"
    assert stored["executed_args"] is None
    assert stored["decision"]["type"] == "reject"
    assert stored["decision"]["message"] == "I still need it"

    await page.reload()
    row = tool_call(page, call_id)
    await expect(row).to_have_attribute("data-status", "rejected")
    await expect(row.get_by_test_id("decision")).to_have_text("Rejected: I still need it")
    await expect_card_closed(row)
    await expect(messages(page, "assistant").last).to_contain_text("You said: I still need it.")
    await expect(tool_call(page, await call_id_of(added)).get_by_test_id("decision")).to_have_text(
        "Approved"
    )
