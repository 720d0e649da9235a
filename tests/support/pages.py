"""Browser-test helpers shared by the Playwright tests: locators and server-side checks."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from playwright.async_api import Browser, BrowserContext, Locator, Page, expect

from support.live import LiveServer
from support.notes import stored_notes

STATUS_WORDS = {
    "pending": "Getting ready",
    "interrupted": "Waiting for you",
    "awaiting_client": "Waiting for your browser",
    "running": "Running",
    "succeeded": "Done",
    "failed": "Failed",
    "rejected": "Rejected",
    "cancelled": "Cancelled",
    "expired": "Expired",
}
"""How the row's status badge words each tool call status (``data-status`` keeps the raw one)."""


def conversation(page: Page) -> Locator:
    return page.get_by_test_id("conversation")


async def send(page: Page, text: str) -> None:
    """Type ``text`` in the composer, send it, and wait for it to show as a user message."""
    box = page.get_by_test_id("composer-input")
    await expect(box).to_be_enabled()
    await box.fill(text)
    await page.get_by_test_id("send").click()
    await expect(box).to_have_value("")
    await expect(messages(page, "user").last).to_have_text(text)


async def open_conversation_id(page: Page) -> str:
    """The id of the stored conversation open on the page (waits until one is open)."""
    view = conversation(page)
    await expect(view).to_have_attribute("data-conversation-id", re.compile(r".+"))
    conversation_id = await view.get_attribute("data-conversation-id")
    assert conversation_id
    return conversation_id


async def new_chat(page: Page, slug: str = "assistant") -> None:
    """New chat → choose the employee: a new chat opens (stored with its first message)."""
    await page.get_by_test_id("new-chat").click()
    await (
        page.locator(f'[data-testid="employee-option"][data-slug="{slug}"]')
        .get_by_test_id("employee-choose")
        .click()
    )
    await expect(page.get_by_test_id("new-conversation")).to_have_attribute("data-employee", slug)
    await expect(page.get_by_test_id("composer-input")).to_be_enabled()


async def start_chat(page: Page, first_message: str, slug: str = "assistant") -> str:
    """Open a new chat with ``slug``, send ``first_message``; return the stored conversation's id."""
    await new_chat(page, slug)
    await send(page, first_message)
    return await open_conversation_id(page)


def messages(page: Page, role: str) -> Locator:
    return page.locator(f'[data-testid="message"][data-role="{role}"]')


def tool_call(page: Page, call_id: str) -> Locator:
    return page.locator(f'[data-testid="tool-call"][data-tool-call-id="{call_id}"]')


async def stored_call(app: LiveServer, conversation_id: str, call_id: str) -> dict[str, Any]:
    """The call as GET /api/conversations/{id} reports it."""
    response = await app.client.get(f"/api/conversations/{conversation_id}")
    assert response.status_code == 200, response.text
    calls = [c for m in response.json()["messages"] for c in m["tool_calls"] if c["id"] == call_id]
    assert len(calls) == 1, calls
    return dict(calls[0])


def notes(app: LiveServer) -> list[tuple[int, str]]:
    """Every stored note as ``(id, text)``, straight from the server's database."""
    return stored_notes(app.services.db)


async def open_conversation(page: Page, conversation_id: str) -> None:
    """Open ``conversation_id`` in ``page`` and wait until it shows."""
    await page.goto(f"/#/c/{conversation_id}")
    await expect(conversation(page)).to_have_attribute("data-conversation-id", conversation_id)


async def paused_with(app: LiveServer, text: str) -> tuple[str, list[str]]:
    """A conversation with Ada where ``text`` was sent and the run paused; its waiting ids."""
    conversation_id = await app.new_conversation()
    await app.say(conversation_id, text)
    await app.idle()
    pending = (await app.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    assert pending, "the run did not pause on a call"
    return conversation_id, [c["id"] for c in pending]


def waiting(page: Page) -> Locator:
    """The tool call rows waiting for a decision."""
    return page.locator('[data-testid="tool-call"][data-status="interrupted"]')


@asynccontextmanager
async def new_page(browser: Browser, url: str, **options: object) -> AsyncIterator[Page]:
    """A page in a fresh browser context bound to ``url`` (closed afterwards)."""
    ctx: BrowserContext = await browser.new_context(base_url=url, **options)  # type: ignore[arg-type]
    ctx.set_default_timeout(10_000)
    errors: list[str] = []
    try:
        tab = await ctx.new_page()
        tab.on("pageerror", lambda error: errors.append(str(error)))
        yield tab
    finally:
        await ctx.close()
    assert not errors, f"uncaught errors in the page: {errors}"


async def only_waiting(page: Page) -> tuple[Locator, str]:
    """The one call waiting for a decision: its row and id (fails unless exactly one waits)."""
    await expect(waiting(page)).to_have_count(1)
    call_id = await waiting(page).get_attribute("data-tool-call-id")
    assert call_id
    return tool_call(page, call_id), call_id


async def paused_on_one_call(page: Page) -> tuple[Locator, str]:
    """Wait for the run to pause on one call; return that call's row and id."""
    await expect(conversation(page)).to_have_attribute("data-status", "paused")
    return await only_waiting(page)


async def open_app(page: Page, conversation_id: str | None = None) -> None:
    """Load the app (optionally straight into a conversation) and wait until it is usable."""
    await page.goto(f"/#/c/{conversation_id}" if conversation_id else "/")
    await expect(page.get_by_test_id("new-chat")).to_be_enabled()
    if conversation_id:
        await expect(conversation(page)).to_have_attribute("data-conversation-id", conversation_id)


def sidebar_item(page: Page, conversation_id: str) -> Locator:
    """The conversation's entry in the sidebar."""
    return page.locator(
        f'[data-testid="conversation-item"][data-conversation-id="{conversation_id}"]'
    )


async def finished(page: Page, row: Locator, status: str = "succeeded") -> None:
    """Wait for the call to end with ``status`` and the conversation to be idle again."""
    await expect(row).to_have_attribute("data-status", status)
    await expect(row.get_by_test_id("tool-status")).to_have_text(STATUS_WORDS[status])
    await expect(conversation(page)).to_have_attribute("data-status", "idle")
    await expect(page.get_by_test_id("composer-input")).to_be_enabled()
