"""Tryout faults in Chromium: a reply being written, a server restart mid-reply, a bad token.

* a page reloaded, or the same conversation opened in a second tab, while a reply streams
  shows that reply from its first word (it started mid-sentence);
* a reply cut by a server restart is marked in words, and the run going on after the
  restart answers the person's message (it said "I have nothing to add yet"); the page finds
  the server again within a few seconds;
* a pasted token holding a character a browser cannot send (U+202E, U+200B) is refused as a
  wrong token is, and can be forgotten (it locked the page out with "Cannot reach the server").

Every wait is a bounded Playwright ``expect``; no sleeps.
"""

from __future__ import annotations

import re
from contextlib import AsyncExitStack
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, expect

from interlock.models.offline.texts import LONG_TEXT
from interlock.settings import Settings
from interlock.storage.users import create_user
from support.live import LiveServer, live_server
from support.pages import conversation, messages, new_chat, new_page, open_conversation, send

pytestmark = pytest.mark.asyncio(loop_scope="session")

SLOW = [{"offline_token_delay_s": 0.05}]
FIRST_WORDS = re.compile(r"^\s*Part 1\.")
LAST_PART = LONG_TEXT.rsplit("**", 1)[-1].strip()[-40:]
"""The end of the long answer, as shown."""


@pytest.mark.parametrize("app_overrides", SLOW, ids=["slow-tokens"])
async def test_a_reply_being_written_shows_whole_after_a_reload_and_in_a_second_tab(
    app: LiveServer, page: Page, browser: Browser
) -> None:
    await page.goto("/")
    await new_chat(page)
    await send(page, "write a long answer")
    draft = page.get_by_test_id("draft")
    await expect(draft).to_contain_text("Part 2.")  # well into the reply
    conversation_id = await conversation(page).get_attribute("data-conversation-id")
    assert conversation_id

    async with new_page(browser, app.url) as second:
        await open_conversation(second, conversation_id)
        other = second.get_by_test_id("draft")
        await expect(other).to_have_text(FIRST_WORDS)
        await expect(other).to_contain_text("Part 2.")

        await page.reload()
        await expect(conversation(page)).to_have_attribute("data-status", "running")
        await expect(draft).to_have_text(FIRST_WORDS)

        # Both end with the whole reply, once.
        for tab in (page, second):
            await expect(conversation(tab)).to_have_attribute("data-status", "idle")
            reply = messages(tab, "assistant")
            await expect(reply).to_have_count(1)
            await expect(reply).to_have_text(FIRST_WORDS)
            await expect(reply).to_contain_text(LAST_PART)
            await expect(tab.get_by_test_id("draft")).to_have_count(0)


@pytest.mark.parametrize("app_overrides", SLOW, ids=["slow-tokens"])
async def test_a_reply_cut_by_a_server_restart_is_marked_and_the_message_answered(
    browser: Browser, app_settings: Settings, tmp_path: Path
) -> None:
    async with AsyncExitStack() as stack:
        servers = AsyncExitStack()
        stack.push_async_callback(servers.aclose)
        first = await servers.enter_async_context(live_server(app_settings))
        port = first.url.rsplit(":", 1)[1]
        page = await stack.enter_async_context(new_page(browser, first.url))
        await page.goto("/")
        await new_chat(page)
        await send(page, "write a long answer")
        await expect(page.get_by_test_id("draft")).to_contain_text("Part 1.")

        await servers.aclose()  # as on SIGTERM, mid-reply
        connection = page.get_by_test_id("connection")
        await expect(connection).to_have_attribute("data-state", "reconnecting")
        await servers.enter_async_context(live_server(app_settings, port=int(port)))
        # Found again within the default wait (retries at most 4 s apart, not ~12 s).
        await expect(connection).to_have_attribute("data-state", "open", timeout=8_000)

        replies = messages(page, "assistant")
        await expect(replies).to_have_count(2)
        cut = replies.first
        await expect(cut.get_by_test_id("restarted")).to_have_text(
            "Cut off: the server stopped while this reply was being written."
        )
        await expect(cut).to_have_text(FIRST_WORDS)
        answer = replies.last
        await expect(answer).to_have_text(FIRST_WORDS)
        await expect(answer).to_contain_text(LAST_PART)
        await expect(answer.get_by_test_id("restarted")).to_have_count(0)
        await expect(page.get_by_text("I have nothing to add yet")).to_have_count(0)
        await cut.get_by_test_id("restarted").scroll_into_view_if_needed()
        await page.screenshot(path=tmp_path / "restarted.png")

        # Still marked after a reload.
        await page.reload()
        await expect(messages(page, "assistant").first.get_by_test_id("restarted")).to_be_visible()
        await expect(page.get_by_test_id("restarted")).to_have_count(1)


@pytest.mark.parametrize("token", ["tokén-\u202e", "abc\u200bdef"], ids=["rtl-mark", "zero-width"])
async def test_a_token_the_browser_cannot_send_is_refused_and_can_be_forgotten(
    app: LiveServer, page: Page, token: str
) -> None:
    create_user(app.services.db, "owner")  # a user exists: the API wants a token
    await page.goto("/")
    await page.get_by_test_id("token-input").fill(token)
    await page.get_by_test_id("token-save").click()
    refusal = page.get_by_test_id("token-refused")
    await expect(refusal).to_contain_text(
        "The token you entered was not accepted (mistyped, revoked, or for another server). "
        "Paste another, or forget it."
    )
    await expect(page.get_by_text("Cannot reach the server")).to_have_count(0)

    # Saved, it is refused again on the next visit, with a way out.
    await page.reload()
    await expect(page.get_by_test_id("token-refused")).to_contain_text(
        "The saved token was not accepted"
    )
    await expect(page.get_by_text("Cannot reach the server")).to_have_count(0)
    await page.get_by_test_id("token-clear").click()
    await expect(page.get_by_test_id("token-refused")).to_have_count(0)
    assert await page.evaluate("localStorage.getItem('interlock.token')") is None
