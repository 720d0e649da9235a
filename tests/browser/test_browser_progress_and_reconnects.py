"""The app shell in Chromium (issue 6): progress, reconnects and tabs.

* the stream comes back by itself after a dropped connection, a sleep and a server restart,
  with the waiting card live again; two browser contexts stay in step;
* the keyboard jumps to a new decision; thinking, streaming and a stopped reply are marked;
* a 1 MB streamed reply leaves the composer responsive.

Every wait is a bounded Playwright ``expect``; no sleeps.
"""

from __future__ import annotations

import asyncio
import re
from contextlib import AsyncExitStack

import pytest
from playwright.async_api import Browser, Page, Route, expect

from interlock.models import ScriptedChatModel
from interlock.settings import Settings
from support.live import LiveServer, live_server
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

RESPONSIVE_MS = 5_000
"""Bound for the composer to show what was typed while a large reply streams in
(a page blocked while it renders misses it; a loaded CI machine does not)."""


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
