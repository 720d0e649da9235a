"""Tools that run in the person's browser (issue 6), in Chromium.

``browser.time_zone`` (ALLOW) runs in the open page as soon as the call waits for the browser;
with no page open the call waits ("Waiting for your browser") and runs when one opens.
``browser.selection`` (ASK) runs after the person's decision with the executed args. The result
endpoint only takes the owner's result, once: another user's forged post is refused.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, BrowserContext, Page, Route, expect

from interlock.storage.users import create_user
from support.live import LiveServer
from support.pages import conversation, messages, send, tool_call

pytestmark = pytest.mark.asyncio(loop_scope="session")

ZONE = "Pacific/Chatham"
"""A time zone no test machine has by default, set on the browser context."""


@pytest_asyncio.fixture(loop_scope="session")
async def context(browser: Browser, app: LiveServer) -> AsyncIterator[BrowserContext]:
    """The page's browser context, in the time zone ``ZONE``."""
    ctx = await browser.new_context(
        base_url=app.url, viewport={"width": 1280, "height": 860}, timezone_id=ZONE
    )
    ctx.set_default_timeout(10_000)
    yield ctx
    await ctx.close()


async def calls_named(app: LiveServer, conversation_id: str, name: str, **kw: Any) -> list[Any]:
    detail = (await app.client.get(f"/api/conversations/{conversation_id}", **kw)).json()
    return [c for m in detail["messages"] for c in m["tool_calls"] if c["name"] == name]


async def test_time_zone_runs_at_once_in_the_open_page(app: LiveServer, page: Page) -> None:
    conversation_id = await app.new_conversation()
    await page.goto(f"/#/c/{conversation_id}")
    await expect(conversation(page)).to_have_attribute("data-conversation-id", conversation_id)
    await send(page, "use browser.time_zone with {}")
    row = page.locator('[data-testid="tool-call"][data-tool-name="browser.time_zone"]')
    await expect(row).to_have_attribute("data-status", "succeeded")
    await expect(row.locator(".card")).to_have_count(0)
    await expect(conversation(page)).to_have_attribute("data-status", "idle")
    await expect(messages(page, "assistant").last).to_contain_text(ZONE)
    [call] = await calls_named(app, conversation_id, "browser.time_zone")
    assert call["execution"] == "frontend"
    assert call["result_data"] == {"time_zone": ZONE}


async def test_with_no_page_open_the_call_waits_then_runs_and_a_forged_result_is_refused(
    app: LiveServer, page: Page, context: BrowserContext
) -> None:
    _ann, ann_token = create_user(app.services.db, "ann")
    _bob, bob_token = create_user(app.services.db, "bob")
    ann = {"Authorization": f"Bearer {ann_token}"}
    bob = {"Authorization": f"Bearer {bob_token}"}
    created = await app.client.post("/api/conversations", json={}, headers=ann)
    conversation_id = created.json()["id"]
    said = await app.client.post(
        f"/api/conversations/{conversation_id}/messages",
        json={"content": "use browser.time_zone with {}"},
        headers=ann,
    )
    assert said.status_code == 202, said.text
    await app.idle()
    [call] = await calls_named(app, conversation_id, "browser.time_zone", headers=ann)
    assert call["status"] == "awaiting_client"

    # Bob cannot answer Ann's call: 404, and nothing is written.
    forged = await app.client.post(
        f"/api/tool-calls/{call['id']}/result",
        json={"text": "Forged.", "data": {"time_zone": "Europe/Oslo"}},
        headers=bob,
    )
    assert forged.status_code == 404, forged.text
    [call] = await calls_named(app, conversation_id, "browser.time_zone", headers=ann)
    assert call["status"] == "awaiting_client"

    # Ann opens the app: the card says it waits for her browser, then her browser runs it.
    held: asyncio.Future[Route] = asyncio.get_running_loop().create_future()

    async def hold(route: Route) -> None:
        if held.done():
            await route.continue_()
        else:
            held.set_result(route)

    await page.route(re.compile(r"/api/tool-calls/[^/]+/result$"), hold)
    await context.add_init_script(f"localStorage.setItem('interlock.token', '{ann_token}')")
    await page.goto(f"/#/c/{conversation_id}")
    row = tool_call(page, call["id"])
    await expect(row.get_by_test_id("tool-status")).to_have_text("Waiting for your browser")
    await (await asyncio.wait_for(held, timeout=30)).continue_()
    await expect(row).to_have_attribute("data-status", "succeeded")
    await expect(messages(page, "assistant").last).to_contain_text(ZONE)

    # A second result for the same call: 409.
    again = await app.client.post(
        f"/api/tool-calls/{call['id']}/result", json={"text": "Again."}, headers=ann
    )
    assert again.status_code == 409, again.text


async def test_selection_asks_first_then_runs_with_the_edited_args(
    app: LiveServer, page: Page
) -> None:
    conversation_id = await app.new_conversation()
    await page.goto(f"/#/c/{conversation_id}")
    await expect(conversation(page)).to_have_attribute("data-conversation-id", conversation_id)
    request = 'use browser.selection with {"purpose": "quote it"}'
    await send(page, request)
    row = page.locator('[data-testid="tool-call"][data-tool-name="browser.selection"]')
    await expect(row).to_have_attribute("data-status", "interrupted")
    await expect(row.get_by_test_id("card-summary")).to_contain_text("Reason: quote it.")
    await expect(row.get_by_test_id("approve")).to_have_text("Share selection")

    # The person selects their own message on the page, then edits the purpose.
    await page.evaluate(
        """() => {
            const el = document.querySelector('[data-testid="message"][data-role="user"] .plain');
            const range = document.createRange();
            range.selectNodeContents(el);
            getSelection().removeAllRanges();
            getSelection().addRange(range);
        }"""
    )
    call_id = await row.get_attribute("data-tool-call-id")
    await row.get_by_test_id("edit").click()
    await row.locator(f"#edit_{call_id}_purpose").fill("cite it")
    await row.get_by_test_id("edit-submit").click()

    await expect(row).to_have_attribute("data-status", "succeeded")
    await expect(row.get_by_test_id("decision")).to_have_text("Edited and approved")
    await expect(conversation(page)).to_have_attribute("data-status", "idle")
    [call] = await calls_named(app, conversation_id, "browser.selection")
    assert call["executed_args"] == {"purpose": "cite it"}
    assert call["result_data"] == {"text": request}
