"""The app shell in Chromium (issue 6): many calls for one person, progress, reconnects, tabs.

* sending while decisions wait is deliberate (the composer warns and asks once);
* the Approvals view lists every waiting call across conversations and leads to its card;
* conversations are renamed and deleted in the sidebar; an empty new chat is not stored;
* the operation log; a 390 px drawer; avatars without an emoji font.

Progress, reconnects and tabs: ``test_browser_progress_and_reconnects``.

Every wait is a bounded Playwright ``expect``; no sleeps.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, Request, expect

from support.live import LiveServer
from support.pages import (
    conversation,
    messages,
    new_chat,
    new_page,
    notes,
    open_conversation,
    paused_with,
    send,
    tool_call,
    waiting,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")

DOCS = Path(__file__).resolve().parents[2] / "docs"


# --------------------------------------------------------------------------------------------
# Many calls, one person
# --------------------------------------------------------------------------------------------


async def test_composer_warns_that_sending_cancels_waiting_decisions_and_asks_once(
    app: LiveServer, page: Page
) -> None:
    conversation_id, call_ids = await paused_with(app, "add a note one and add a note two")
    assert len(call_ids) == 2
    await open_conversation(page, conversation_id)
    await expect(waiting(page)).to_have_count(2)

    banner = page.get_by_test_id("waiting-banner")
    await expect(banner).to_contain_text("Ada is waiting for you")
    await expect(banner).to_contain_text("2 decisions")
    await expect(page).to_have_title(re.compile(r"^\(2\) "))
    warning = page.get_by_test_id("composer-warning")
    await expect(warning).to_have_text(
        "2 decisions are waiting for you. Sending a message cancels them."
    )
    box = page.get_by_test_id("composer-input")
    await expect(box).to_have_attribute("aria-describedby", re.compile(r".+"))

    posts: list[str] = []

    def record(request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/messages"):
            posts.append(request.url)

    page.on("request", record)

    # Enter asks instead of sending; Escape keeps the decisions and the text.
    await box.fill("never mind")
    await box.press("Enter")
    confirm = page.get_by_test_id("composer-confirm")
    await expect(confirm).to_contain_text("cancel the 2 waiting calls")
    await expect(confirm.get_by_test_id("composer-confirm-send")).to_be_focused()
    await page.keyboard.press("Escape")
    await expect(confirm).to_have_count(0)
    await expect(box).to_have_value("never mind")
    await expect(box).to_be_focused()
    assert posts == []

    # Asked once: confirming sends, and the server cancels both calls.
    await page.get_by_test_id("send").click()
    await confirm.get_by_test_id("composer-confirm-send").click()
    await expect(messages(page, "user").last).to_have_text("never mind")
    await expect(page.locator('[data-testid="tool-call"][data-status="cancelled"]')).to_have_count(
        2
    )
    await expect(warning).to_have_count(0)
    await expect(page.get_by_test_id("waiting-banner")).to_have_count(0)
    await expect(page).not_to_have_title(re.compile(r"^\("))
    assert len(posts) == 1
    assert notes(app) == []


async def test_a_message_the_server_would_refuse_is_refused_before_asking_to_cancel(
    app: LiveServer, page: Page
) -> None:
    conversation_id, [call_id] = await paused_with(app, "add a note one")
    await open_conversation(page, conversation_id)
    await expect(waiting(page)).to_have_count(1)
    posts: list[str] = []
    page.on(
        "request",
        lambda r: (
            posts.append(r.url) if r.method == "POST" and r.url.endswith("/messages") else None
        ),
    )
    box = page.get_by_test_id("composer-input")
    confirm = page.get_by_test_id("composer-confirm")
    error = page.get_by_test_id("composer-error")

    # A command the employee does not have: said at once, nothing asked, nothing sent.
    await box.fill("/nosuchcommand buy milk")
    await box.press("Enter")
    await expect(error).to_contain_text(
        "Ada has no command /nosuchcommand. You can use /notes, or write your request as a message."
    )
    await expect(confirm).to_have_count(0)
    # Only blanks: the same.
    await box.fill("   ")
    await page.get_by_test_id("send").click()
    await expect(error).to_have_text("The message is empty: write something to send.")
    await expect(confirm).to_have_count(0)

    # A refusal only the server can see (too long) comes after asking, in words, and says
    # that nothing was cancelled.
    await box.fill("x" * (app.services.settings.max_message_bytes + 1))
    await box.press("Enter")
    await confirm.get_by_test_id("composer-confirm-send").click()
    await expect(error).to_contain_text("The message is too long")
    await expect(error).to_contain_text("Nothing was cancelled: the decision still waits for you.")
    await expect(
        page.locator(f'[data-tool-call-id="{call_id}"][data-status="interrupted"]')
    ).to_have_count(1)
    assert len(posts) == 1
    assert notes(app) == []


async def test_approvals_view_lists_waiting_calls_newest_first_and_leads_to_the_card(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    older, [older_call] = await paused_with(app, "add a note buy milk")
    _, newer_calls = await paused_with(app, "add a note call mum and add a note water plants")
    renamed = await app.client.patch(f"/api/conversations/{older}", json={"title": "Groceries"})
    assert renamed.status_code == 200, renamed.text

    await page.goto("/#/approvals")
    view = page.get_by_test_id("approvals-view")
    items = view.get_by_test_id("approval-item")
    await expect(items).to_have_count(3)
    await expect(page.get_by_test_id("approvals-count")).to_have_text("3")
    await expect(page).to_have_title(re.compile(r"^\(3\) Approvals"))
    # Newest first, each with its employee and conversation.
    ids = [await items.nth(i).get_attribute("data-tool-call-id") for i in range(3)]
    assert ids[2] == older_call
    assert set(ids[:2]) == set(newer_calls)
    oldest = view.locator(f'[data-testid="approval-item"][data-tool-call-id="{older_call}"]')
    await expect(oldest).to_contain_text("Ada")
    await expect(oldest).to_contain_text("Groceries")
    await expect(oldest).to_contain_text("Add a note")
    await expect(oldest).to_contain_text("buy milk")
    shot = tmp_path / "approvals-view.png"
    await page.screenshot(path=shot)
    save_doc_screenshot(shot, "approvals-view.png")

    # Live: a call decided elsewhere leaves the list without a reload.
    decided = await app.decide(newer_calls[0], type="reject", message="not now")
    assert decided.status_code == 200, decided.text
    await expect(items).to_have_count(2)

    # An entry leads to its conversation, with focus on the waiting card.
    await oldest.get_by_role("link").click()
    await expect(conversation(page)).to_have_attribute("data-conversation-id", older)
    card = tool_call(page, older_call)
    await expect(card.get_by_test_id("approve")).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(card).to_have_attribute("data-status", "succeeded")
    await page.get_by_test_id("approvals-link").click()
    await expect(items).to_have_count(1)


async def test_conversations_are_renamed_and_deleted_in_the_sidebar(
    app: LiveServer, page: Page
) -> None:
    keep = await app.new_conversation()
    await app.say(keep, "hello")
    drop = await app.new_conversation()
    await app.say(drop, "add a note doomed")
    await app.idle()
    await page.goto(f"/#/c/{drop}")
    await expect(conversation(page)).to_have_attribute("data-conversation-id", drop)

    entry = page.locator(f'[data-testid="conversation-entry"][data-conversation-id="{keep}"]')
    await entry.get_by_test_id("conversation-rename").click()
    field = entry.get_by_test_id("rename-input")
    await expect(field).to_be_focused()
    await field.fill("Changed my mind")
    await field.press("Escape")  # Esc closes the form without saving
    await expect(field).to_have_count(0)
    await expect(entry.get_by_test_id("conversation-rename")).to_be_focused()
    await expect(entry.get_by_test_id("conversation-item")).to_contain_text("hello")

    await entry.get_by_test_id("conversation-rename").click()
    await field.fill("  Morning plans  ")
    await field.press("Enter")
    await expect(entry.get_by_test_id("conversation-item")).to_contain_text("Morning plans")
    stored = (await app.client.get(f"/api/conversations/{keep}")).json()
    assert stored["title"] == "Morning plans"

    # Delete asks first; Cancel keeps it; Delete removes it and leaves the open view.
    doomed = page.locator(f'[data-testid="conversation-entry"][data-conversation-id="{drop}"]')
    await doomed.get_by_test_id("conversation-delete").click()
    await expect(doomed.get_by_test_id("conversation-delete-confirm")).to_be_focused()
    await doomed.get_by_test_id("conversation-delete-cancel").click()
    await expect(doomed.get_by_test_id("conversation-delete-confirm")).to_have_count(0)
    await doomed.get_by_test_id("conversation-delete").click()
    await doomed.get_by_test_id("conversation-delete-confirm").click()
    await expect(doomed).to_have_count(0)
    await expect(page.get_by_test_id("employee-picker")).to_be_visible()
    listed = [c["id"] for c in (await app.client.get("/api/conversations")).json()]
    assert listed == [keep]


async def test_an_empty_new_chat_is_not_stored_until_its_first_message(
    app: LiveServer, page: Page
) -> None:
    await page.goto("/")
    await new_chat(page)
    await expect(page.get_by_test_id("employee-greeting")).to_be_visible()
    assert (await app.client.get("/api/conversations")).json() == []

    await send(page, "hello")
    await expect(conversation(page)).to_have_attribute("data-conversation-id", re.compile(".+"))
    listed = (await app.client.get("/api/conversations")).json()
    assert len(listed) == 1
    await expect(page.get_by_test_id("conversation-item")).to_have_count(1)


# --------------------------------------------------------------------------------------------
# Operation log, small screens
# --------------------------------------------------------------------------------------------


async def test_operation_log_lists_every_call_as_text_newest_last(
    app: LiveServer, page: Page
) -> None:
    hostile = "<b>bold</b> <img src=x onerror=window.__pwned=1>"
    conversation_id, [call_id] = await paused_with(app, f"add a note {hostile}")
    decided = await app.decide(call_id, type="approve")
    assert decided.status_code == 200
    await app.idle()
    await app.say(conversation_id, "what notes do I have?")
    await app.idle()
    await open_conversation(page, conversation_id)

    await page.get_by_test_id("log-toggle").click()
    log = page.get_by_role("log")
    rows = log.get_by_test_id("log-row")
    await expect(rows).to_have_count(2)
    first, last = rows.nth(0), rows.nth(1)
    await expect(first).to_have_attribute("data-tool-call-id", call_id)
    await expect(first).to_contain_text("Add a note")
    await expect(first.locator("time")).to_have_text(re.compile(r"^\d\d:\d\d:\d\d$"))
    await expect(first.get_by_test_id("log-status")).to_have_text("Done")
    await expect(first.get_by_test_id("log-who")).to_have_text("by you")
    # As the card says it (the tool's confirmation), not as raw keys ('text: "..."').
    await expect(first.get_by_test_id("log-summary")).to_contain_text("Add a note: “<b>bold</b>")
    await expect(first.get_by_test_id("log-summary")).not_to_contain_text("text:")
    # The summary gets the row's free width, the status badge only its words' (a 6-10rem
    # summary column cut it to 'Add a note: “<b>…' and stretched the badge over the rest).
    summary = first.get_by_test_id("log-summary")
    assert not await summary.evaluate("e => e.scrollWidth > e.clientWidth")
    badge = await first.get_by_test_id("log-status").bounding_box()
    assert badge is not None and badge["width"] < 120, badge
    await expect(last.get_by_test_id("log-who")).to_have_text("allowed without asking")

    await first.locator("button").first.click()
    await expect(first.get_by_test_id("log-full-args")).to_contain_text(hostile)
    await expect(first.get_by_test_id("log-full-result")).to_be_visible()
    assert await log.locator("b, img").count() == 0
    assert await page.evaluate("() => window.__pwned") is None


async def test_below_700px_the_sidebar_is_a_drawer(app: LiveServer, browser: Browser) -> None:
    conversation_id, _ = await paused_with(app, "add a note small screen")
    async with new_page(browser, app.url, viewport={"width": 390, "height": 844}) as page:
        await open_conversation(page, conversation_id)
        sidebar = page.locator("#sidebar")
        menu = page.get_by_test_id("menu-button")
        await expect(menu).to_be_visible()
        await expect(sidebar).to_be_hidden()
        await expect(waiting(page)).to_have_count(1)

        await menu.click()
        await expect(menu).to_have_attribute("aria-expanded", "true")
        await expect(sidebar).to_be_visible()
        await page.keyboard.press("Escape")
        await expect(sidebar).to_be_hidden()

        await menu.click()
        await sidebar.get_by_test_id("new-chat").click()
        await expect(sidebar).to_be_hidden()
        await expect(page.get_by_test_id("employee-picker")).to_be_visible()
        # Nothing is wider than the screen.
        width = await page.evaluate("() => document.documentElement.scrollWidth")
        assert width <= 390


async def test_avatars_fall_back_to_initials_without_an_emoji_font(
    app: LiveServer, page: Page
) -> None:
    await page.goto("/")
    avatar = page.locator('[data-testid="employee-option"][data-slug="assistant"] .avatar')
    await expect(avatar).to_have_attribute("data-avatar", "🧭")
    # Debian's headless Chromium here has no colour emoji font: the compass cannot be drawn.
    has_emoji_font = await page.evaluate(
        "() => document.fonts.check('16px \"Noto Color Emoji\"', '🧭')"
    )
    await expect(avatar).to_have_text("A" if not has_emoji_font else re.compile("^(🧭|A)$"))


def save_doc_screenshot(path: Path, name: str) -> None:
    # INTERLOCK_TEST_*: the suite clears other INTERLOCK_* variables for each test.
    if os.environ.get("INTERLOCK_TEST_DOCS_SCREENSHOTS") == "1":
        shutil.copyfile(path, DOCS / name)
