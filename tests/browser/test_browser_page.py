"""The page around a conversation, in Chromium: the offline badge, history rendered as safe
markdown, the sidebar (a new chat listed first, and kept when the first list answer is late),
and a streamed reply shown as a draft that stop ends.

Each test drives the real app (built ``client-web/dist`` + API + offline model + SQLite).
Every wait is a bounded Playwright ``expect``; no sleeps.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from playwright.async_api import APIResponse, Page, Route, expect

from support.live import LiveServer
from support.pages import (
    conversation,
    finished,
    messages,
    new_chat,
    notes,
    open_app,
    send,
    sidebar_item,
    start_chat,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_offline_badge_shows_on_the_welcome_page_and_in_a_conversation(
    app: LiveServer, page: Page
) -> None:
    health = (await app.client.get("/api/health")).json()
    assert health["model"]["offline"] is True

    await open_app(page)
    await expect(page.get_by_test_id("offline-badge")).to_be_visible()
    await expect(page.get_by_test_id("offline-badge")).to_have_text("Offline model")

    await new_chat(page)
    badge = page.get_by_test_id("new-conversation").get_by_test_id("offline-badge")
    await expect(badge).to_be_visible()
    await expect(badge).to_have_text("Offline model")

    await send(page, "hello")
    badge = conversation(page).get_by_test_id("offline-badge")
    await expect(badge).to_be_visible()
    await expect(badge).to_have_text("Offline model")


async def test_markdown_in_history_is_rendered_without_raw_html_or_unsafe_links(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    # The offline model quotes the note's text in its reply, so the text lands in an
    # assistant message that the client renders as markdown.
    payload = (
        '<img src="x" onerror="window.__xss = 1"> <script>window.__xss = 2</script> '
        "[evil](javascript:window.__xss=3) [docs](https://example.com/docs) **bold**"
    )
    conversation_id = await app.new_conversation()
    await app.say(conversation_id, f"add a note {payload}")
    await app.idle()
    pending = (await app.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    assert [c["name"] for c in pending] == ["notes.add"]
    decided = await app.decide(pending[0]["id"], type="approve")
    assert decided.status_code == 200, decided.text
    await app.idle()
    assert [text for _, text in notes(app)] == [payload]

    await open_app(page, conversation_id)
    reply = messages(page, "assistant").last
    await expect(reply).to_contain_text("Done — I added note #")
    await expect(reply).to_contain_text('<img src="x" onerror="window.__xss = 1">')
    await expect(reply).to_contain_text("<script>window.__xss = 2</script>")
    await expect(reply.locator("strong")).to_have_text("bold")
    docs = reply.locator("a", has_text="docs")
    await expect(docs).to_have_attribute("href", "https://example.com/docs")
    await expect(docs).to_have_attribute("rel", re.compile(r"\bnoopener\b"))
    await expect(reply.get_by_text("evil", exact=True)).to_be_visible()
    await page.screenshot(path=tmp_path / "markdown.png", full_page=True)

    assert await page.locator(".message img, .message script").count() == 0
    assert await page.locator('a[href^="javascript:" i]').count() == 0
    assert await reply.locator("a").count() == 1
    assert await page.evaluate("() => window.__xss") is None
    # The person's own message is plain text too.
    await expect(messages(page, "user").last).to_have_text(f"add a note {payload}")


async def test_new_chat_is_listed_first_in_the_sidebar(app: LiveServer, page: Page) -> None:
    older = await app.new_conversation()
    await open_app(page)
    await expect(sidebar_item(page, older)).to_be_visible()  # the list has loaded

    await new_chat(page)
    # An empty new chat is not stored: the list still holds only the older one.
    await expect(page.get_by_test_id("conversation-item")).to_have_count(1)
    conversation_id = await start_chat(page, "hello")

    entries = page.get_by_test_id("conversation-item")
    await expect(entries).to_have_count(2)
    await expect(entries.first).to_have_attribute("data-conversation-id", conversation_id)
    await expect(entries.first).to_have_attribute("aria-current", "page")
    await expect(sidebar_item(page, older)).not_to_have_attribute("aria-current", "page")


async def test_new_chat_stays_in_the_sidebar_when_the_first_list_answer_arrives_late(
    app: LiveServer, page: Page
) -> None:
    """The list fetched at start-up must not wipe a conversation created meanwhile.

    The bug this guards against: a list answer applied as the whole sidebar, so the start-up
    answer (read before "New chat" was clicked) replaced the list the new conversation had
    just been prepended to, and the open conversation went missing from the sidebar until
    the next reload. On a slow network a quick click on "New chat" hit it. The first page is
    ``GET /api/conversations?limit=...`` (paged), hence the optional query in the route.
    """
    held: asyncio.Future[tuple[Route, APIResponse]] = asyncio.get_running_loop().create_future()

    holding = True

    async def hold_first_list(route: Route) -> None:
        nonlocal holding
        if route.request.method == "GET" and holding:
            holding = False
            held.set_result((route, await route.fetch()))  # read now, answered later
        else:
            await route.continue_()

    older = await app.new_conversation()
    await page.route(re.compile(r"/api/conversations(\?[^/]*)?$"), hold_first_list)
    await open_app(page)
    route, stale = await asyncio.wait_for(held, timeout=30)

    conversation_id = await start_chat(page, "hello")
    await route.fulfill(response=stale)  # the list as it was before the new chat existed

    # Once the older conversation shows, the page has applied a list; it must hold both.
    await expect(sidebar_item(page, older)).to_be_visible()
    await expect(sidebar_item(page, conversation_id)).to_be_visible()


@pytest.mark.parametrize("app_overrides", [{"offline_token_delay_s": 0.02}], ids=["slow-tokens"])
async def test_streamed_reply_shows_as_a_draft_and_stop_ends_the_run(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    await open_app(page)
    conversation_id = await start_chat(page, "write a long answer")

    draft = page.get_by_test_id("draft")
    await expect(draft).to_contain_text("Part 1.")
    await expect(conversation(page)).to_have_attribute("data-status", "running")
    await expect(page.get_by_test_id("composer-input")).to_be_disabled()
    await page.screenshot(path=tmp_path / "streaming.png", full_page=True)

    await page.get_by_test_id("cancel-run").click()
    await expect(conversation(page)).to_have_attribute("data-status", "idle")
    await expect(draft).to_have_count(0)
    await expect(page.get_by_test_id("cancel-run")).to_have_count(0)
    await expect(page.get_by_test_id("run-error")).to_have_count(0)
    detail = (await app.client.get(f"/api/conversations/{conversation_id}")).json()
    assert detail["status"] == "idle"
    assert not any("Part 4." in m["content"] for m in detail["messages"])

    # The conversation goes on: an ALLOW call runs without a card.
    await send(page, "what notes do I have?")
    row = page.get_by_test_id("tool-call")
    await expect(row).to_have_count(1)
    await finished(page, row, "succeeded")
    await expect(row.locator(".card")).to_have_count(0)
    await expect(messages(page, "assistant").last).to_have_text("No notes yet.")


async def test_a_new_chat_with_an_unknown_or_disabled_employee_says_so_before_typing(
    app: LiveServer, page: Page
) -> None:
    """Found in a tryout: ``#/new/nosuch`` showed a working composer ("Say hello to start."),
    and ``#/new/gpt`` (disabled, an ``openai:`` model) showed "gpt" and "Offline model", saying
    "Gee is disabled." only after a message was sent."""
    created = await app.client.post(
        "/api/employees",
        json={
            "slug": "gpt",
            "name": "Gee",
            "title": "Writer",
            "about": "Writes.",
            "system_prompt": "You are Gee.",
            "model": "openai:gpt-4o-mini",
        },
    )
    assert created.status_code == 201, created.text
    disabled = await app.client.patch("/api/employees/gpt", json={"disabled": True})
    assert disabled.status_code == 200, disabled.text

    await open_app(page)
    await page.goto("/#/new/nosuch")
    unknown = page.get_by_test_id("new-conversation-unknown")
    await expect(unknown.get_by_test_id("conversation-title")).to_have_text(
        "No AI employee called “nosuch”"
    )
    await expect(page.get_by_test_id("composer-input")).to_have_count(0)
    await expect(page.get_by_text("Say hello to start.")).to_have_count(0)
    await unknown.get_by_test_id("new-chat-back").click()
    await expect(page.get_by_test_id("new-conversation-unknown")).to_have_count(0)

    await page.goto("/#/new/gpt")
    chat = page.get_by_test_id("new-conversation")
    await expect(chat).to_have_attribute("data-disabled", "true")
    await expect(chat.get_by_test_id("conversation-employee")).to_contain_text("Gee")
    await expect(chat.get_by_test_id("model-badge")).to_have_text("openai:gpt-4o-mini")
    await expect(chat.get_by_test_id("offline-badge")).to_have_count(0)
    await expect(chat.get_by_test_id("employee-disabled")).to_contain_text("Gee is disabled")
    await expect(chat.get_by_test_id("send")).to_be_disabled()
