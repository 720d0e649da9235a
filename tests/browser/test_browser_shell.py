"""The app shell in Chromium (issue 6): many calls for one person, progress, reconnects, tabs.

* sending while decisions wait is deliberate (the composer warns and asks once);
* the Approvals view lists every waiting call across conversations and leads to its card;
* conversations are renamed and deleted in the sidebar; an empty new chat is not stored;
* the stream comes back by itself after a dropped connection and a server restart, with the
  waiting card live again; two browser contexts stay in step;
* a 1 MB streamed reply leaves the composer responsive; the operation log; a 390 px drawer.

Every wait is a bounded Playwright ``expect``; no sleeps.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import pytest
from playwright.async_api import Browser, BrowserContext, Locator, Page, Request, Route, expect

from interlock.models import ScriptedChatModel
from interlock.settings import Settings
from support.live import LiveServer, live_server
from support.pages import conversation, messages, new_chat, notes, send, tool_call

pytestmark = pytest.mark.asyncio(loop_scope="session")

DOCS = Path(__file__).resolve().parents[2] / "docs"
RESPONSIVE_MS = 5_000
"""Bound for the composer to show what was typed while a large reply streams in
(a page blocked while it renders misses it; a loaded CI machine does not)."""


async def open_conversation(page: Page, conversation_id: str) -> None:
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
    await expect(error).to_contain_text("/nosuchcommand is not available to this employee.")
    await expect(confirm).to_have_count(0)
    # Only blanks: the same.
    await box.fill("   ")
    await page.get_by_test_id("send").click()
    await expect(error).to_have_text("Write a message first.")
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
# Progress, reconnect, many tabs
# --------------------------------------------------------------------------------------------


async def test_the_waiting_card_comes_back_live_after_a_server_restart(
    browser: Browser, app_settings: Settings
) -> None:
    async with AsyncExitStack() as stack:
        servers = AsyncExitStack()
        stack.push_async_callback(servers.aclose)
        first = await servers.enter_async_context(live_server(app_settings))
        port = first.port
        conversation_id, [call_id] = await paused_with(first, "add a note survive the restart")
        page = await stack.enter_async_context(new_page(browser, first.url))
        await open_conversation(page, conversation_id)
        row = tool_call(page, call_id)
        connection = page.get_by_test_id("connection")
        await expect(row.get_by_test_id("approve")).to_be_enabled()
        await expect(connection).to_have_attribute("data-state", "open")
        await expect(connection).to_have_text("Connected")

        # The server stops: the page says so and the card cannot decide meanwhile.
        await servers.aclose()
        await expect(connection).to_have_attribute("data-state", "reconnecting")
        await expect(connection).to_have_text("Reconnecting…")
        await expect(conversation(page)).to_have_attribute("data-connected", "false")
        await expect(row.locator('[data-testid="approve"]:enabled')).to_have_count(0)
        await expect(page.get_by_test_id("disconnected-note")).to_be_visible()

        # Started again on the same port (same database): the stream resumes by itself.
        second = await servers.enter_async_context(live_server(app_settings, port=port))
        await expect(connection).to_have_attribute("data-state", "open")
        await expect(page.get_by_test_id("disconnected-note")).to_have_count(0)
        await expect(row.get_by_test_id("approve")).to_be_enabled()
        await row.get_by_test_id("approve").click()
        await expect(row).to_have_attribute("data-status", "succeeded")
        await second.idle()
        assert [text for _, text in notes(second)] == ["survive the restart"]


class DroppableProxy:
    """A TCP proxy on 127.0.0.1 in front of the server that can break its connections.

    ``drop()`` closes all open connections (the event stream included) and refuses new ones
    until ``restore()``: a dropped network, as the browser sees it. ``freeze()`` silently
    discards everything on the open connections without closing them (a link that died while
    the machine slept); new connections work. ``wake()`` ends a sleep longer than the server's
    keep-alive (``KEEP_ALIVE_S``): the server closed the idle pooled connections meanwhile, so
    the browser finds them closed, while an event stream's connection stays silently dead
    (the server still writes to it, and nothing arrives).
    """

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.down = False
        self.writers: set[asyncio.StreamWriter] = set()
        self.frozen: set[asyncio.StreamWriter] = set()
        self.streams: set[asyncio.StreamWriter] = set()
        """Both ends of the connections that asked for an event stream."""
        self.server: asyncio.Server | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"

    async def __aenter__(self) -> DroppableProxy:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.drop()
        assert self.server is not None
        self.server.close()
        await self.server.wait_closed()

    def drop(self) -> None:
        self.down = True
        for writer in list(self.writers):
            writer.close()
        self.writers.clear()

    def restore(self) -> None:
        self.down = False

    def freeze(self) -> None:
        self.frozen |= self.writers

    def wake(self) -> None:
        for writer in self.frozen - self.streams:
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.down:
            writer.close()
            return
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self.writers |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            try:
                while data := await src.read(65536):
                    if dst is up_writer and _asks_for_events(data):
                        self.streams |= {writer, up_writer}
                    if dst in self.frozen:
                        continue  # lost on a dead link
                    dst.write(data)
                    await dst.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                dst.close()
                self.writers.discard(dst)

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))


def _asks_for_events(data: bytes) -> bool:
    """Whether ``data`` starts a request for a conversation's event stream."""
    request_line = data.split(b"\r\n", 1)[0]
    return request_line.startswith(b"GET ") and b"/events" in request_line


async def test_a_dropped_stream_reconnects_and_replays_what_it_missed(
    app: LiveServer, browser: Browser
) -> None:
    conversation_id, [call_id] = await paused_with(app, "add a note while offline")
    async with DroppableProxy(app.port) as proxy, new_page(browser, proxy.url) as page:
        await open_conversation(page, conversation_id)
        row = tool_call(page, call_id)
        connection = page.get_by_test_id("connection")
        await expect(row.get_by_test_id("approve")).to_be_enabled()
        await expect(connection).to_have_attribute("data-state", "open")

        # The network drops: the stream ends and reconnects fail until it is back.
        proxy.drop()
        await expect(connection).to_have_attribute("data-state", "reconnecting")
        await expect(row.locator('[data-testid="approve"]:enabled')).to_have_count(0)

        # Meanwhile the call is approved elsewhere; the page catches up when it reconnects.
        decided = await app.decide(call_id, type="approve")
        assert decided.status_code == 200, decided.text
        await app.idle()
        proxy.restore()
        await expect(connection).to_have_attribute("data-state", "open")
        await expect(row).to_have_attribute("data-status", "succeeded")
        await expect(row.get_by_test_id("decision")).to_contain_text("Approved")
        # Each event applied once: one user message, one answer.
        await expect(messages(page, "user")).to_have_count(1)
        await expect(
            messages(page, "assistant").filter(has_text="Done — I added note")
        ).to_have_count(1)
        await expect(page.get_by_test_id("disconnected-note")).to_have_count(0)


async def test_a_stream_that_died_in_sleep_reconnects_when_the_machine_wakes(
    app: LiveServer, browser: Browser
) -> None:
    conversation_id, [call_id] = await paused_with(app, "add a note after sleep")
    async with DroppableProxy(app.port) as proxy, new_page(browser, proxy.url) as page:
        await page.clock.install()  # time flows as usual until it jumps forward below
        await open_conversation(page, conversation_id)
        row = tool_call(page, call_id)
        await expect(page.get_by_test_id("connection")).to_have_attribute("data-state", "open")
        await expect(row.get_by_test_id("approve")).to_be_enabled()

        # The machine sleeps: the open connection dies without a word, and meanwhile the
        # call is approved elsewhere. Nothing reaches the page.
        proxy.freeze()
        decided = await app.decide(call_id, type="approve")
        assert decided.status_code == 200, decided.text
        await app.idle()
        await expect(row).to_have_attribute("data-status", "interrupted")

        # It wakes 10 minutes later: timers fire late, the page reconnects and catches up.
        proxy.wake()
        await page.clock.fast_forward("10:00")
        await expect(row).to_have_attribute("data-status", "succeeded")
        await expect(
            messages(page, "assistant").filter(has_text="Done — I added note")
        ).to_have_count(1)


async def test_two_browser_contexts_stay_in_step(
    app: LiveServer, page: Page, browser: Browser
) -> None:
    conversation_id, call_ids = await paused_with(app, "add a note red and add a note blue")
    await open_conversation(page, conversation_id)
    async with new_page(browser, app.url) as other:
        await open_conversation(other, conversation_id)
        await expect(waiting(other)).to_have_count(2)
        await expect(waiting(page)).to_have_count(2)

        # A decision in one context closes that card in the other.
        await tool_call(page, call_ids[0]).get_by_test_id("approve").click()
        await expect(tool_call(other, call_ids[0]).get_by_test_id("approve")).to_have_count(0)
        await expect(tool_call(other, call_ids[0]).get_by_test_id("decision")).to_contain_text(
            "Approved"
        )
        await expect(other.get_by_test_id("waiting-banner")).to_contain_text("1 decision")

        # And the other way round; both see the run finish.
        await tool_call(other, call_ids[1]).get_by_test_id("approve").click()
        for tab in (page, other):
            await expect(conversation(tab)).to_have_attribute("data-status", "idle")
            await expect(
                tab.locator('[data-testid="tool-call"][data-status="succeeded"]')
            ).to_have_count(2)
    assert sorted(text for _, text in notes(app)) == ["blue", "red"]


async def test_keyboard_jumps_to_a_new_decision_and_moves_on_after_each(
    app: LiveServer, page: Page
) -> None:
    await page.goto("/")
    await new_chat(page)
    await send(page, "add a note first and add a note second")
    await expect(waiting(page)).to_have_count(2)
    await expect(page.get_by_test_id("announcer")).to_contain_text(
        "Ada is waiting for your decision"
    )
    first_id = await waiting(page).nth(0).get_attribute("data-tool-call-id")
    second_id = await waiting(page).nth(1).get_attribute("data-tool-call-id")
    assert first_id and second_id

    await page.keyboard.press("Alt+j")
    first = tool_call(page, first_id)
    await expect(first.get_by_test_id("approve")).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(first.get_by_test_id("decision")).to_contain_text("Approved")
    # Focus moved on to the next waiting card, and from there to the composer.
    second = tool_call(page, second_id)
    await expect(second.get_by_test_id("approve")).to_be_focused()
    await page.keyboard.press("Enter")
    await expect(conversation(page)).to_have_attribute("data-status", "idle")
    await expect(page.get_by_test_id("composer-input")).to_be_focused()
    # Nothing waits any more: the announcer no longer says something does.
    await expect(page.get_by_test_id("announcer")).to_have_text("")
    assert sorted(text for _, text in notes(app)) == ["first", "second"]


async def test_a_conversation_opened_before_the_employees_load_still_names_the_employee(
    app: LiveServer, page: Page
) -> None:
    conversation_id, _ = await paused_with(app, "add a note late")
    employees_asked = asyncio.Event()
    release = asyncio.Event()

    async def late(route: Route) -> None:  # the employees answer after the conversation
        employees_asked.set()
        await release.wait()
        await route.continue_()

    await page.route("**/api/employees", late)
    await open_conversation(page, conversation_id)
    await expect(waiting(page)).to_have_count(1)
    await asyncio.wait_for(employees_asked.wait(), timeout=30)
    release.set()

    await expect(page.get_by_test_id("announcer")).to_contain_text(
        "Ada is waiting for your decision: Add a note."
    )


@pytest.mark.parametrize("app_overrides", [{"offline_token_delay_s": 0.02}], ids=["slow-tokens"])
async def test_thinking_then_streaming_and_a_stopped_reply_is_marked(
    app: LiveServer, page: Page
) -> None:
    await page.goto("/")
    await new_chat(page)
    await send(page, "write a long answer")
    draft = page.get_by_test_id("draft")
    await expect(draft).to_contain_text("Part 1.")
    await expect(draft.locator(".cursor")).to_have_count(1)
    await page.get_by_test_id("cancel-run").click()
    await expect(conversation(page)).to_have_attribute("data-status", "idle")
    reply = messages(page, "assistant").last
    await expect(reply.get_by_test_id("stopped")).to_have_text("Stopped")
    await expect(page.get_by_test_id("thinking")).to_have_count(0)

    # Still marked after a reload: the server lists the runs the person stopped.
    conversation_id = await conversation(page).get_attribute("data-conversation-id")
    detail = (await app.client.get(f"/api/conversations/{conversation_id}")).json()
    [stopped_run] = detail["stopped_runs"]
    assert [m["role"] for m in detail["messages"] if m["run_id"] == stopped_run] == [
        "user",
        "assistant",
    ]
    await page.reload()
    await expect(messages(page, "assistant").last.get_by_test_id("stopped")).to_have_text("Stopped")
    await expect(page.get_by_test_id("stopped")).to_have_count(1)


async def test_a_1mb_streamed_reply_keeps_the_composer_responsive(
    browser: Browser, app_settings: Settings
) -> None:
    # 1,000 lines of 1,000 characters: 1 MB streamed in line-sized chunks.
    line = "0123456789" * 100
    big = "\n".join(f"{i:06d}{line[6:]}" for i in range(1000))
    assert len(big) >= 1_000_000
    model = ScriptedChatModel(responses=[big], token_delay_s=0.001)
    async with (
        live_server(app_settings, model=model) as server,
        new_page(browser, server.url) as page,
    ):
        conversation_id = await server.new_conversation()
        await open_conversation(page, conversation_id)
        await server.say(conversation_id, "say a lot")
        box = page.get_by_test_id("composer-input")
        await expect(page.get_by_test_id("draft")).to_have_count(1)
        # While it streams (the composer is disabled during a run) the page still answers
        # keystrokes: type into the sidebar's rename field.
        await page.get_by_test_id("conversation-rename").click()
        rename = page.get_by_test_id("rename-input")
        await rename.press_sequentially(" ok")
        await expect(rename).to_have_value(re.compile(r" ok$"), timeout=RESPONSIVE_MS)
        await rename.press("Escape")
        await expect(conversation(page)).to_have_attribute("data-status", "idle", timeout=60_000)
        reply = messages(page, "assistant").last
        await expect(reply).to_contain_text("000000")
        await box.click()
        await box.press_sequentially("still quick")
        await expect(box).to_have_value("still quick", timeout=RESPONSIVE_MS)
        await page.reload()
        await expect(messages(page, "assistant").last).to_contain_text("000000")
        await box.press_sequentially("after reload")
        await expect(box).to_have_value("after reload", timeout=RESPONSIVE_MS)


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
