"""A call stopped while its tool runs, in Chromium: its card says "May have happened", until
its tool returns after all.

The person approves a write whose tool blocks (in its worker thread) on an event the test
holds, then presses Stop while it runs. The row says the call may have happened (never
"Cancelled", never "Failed"), why, that it was not run again, and offers no Undo; the
operation log says the same; a reload keeps it. Then the test lets the tool finish: the open
card changes live to "Happened after it was stopped" with what the tool did, and offers Undo
(the tool wrote through ``ctx.store``); the operation log says the same; a reload keeps it.
Every wait is a bounded Playwright ``expect``; no sleeps.
"""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, expect

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.tools import Permission, ToolContext, tool
from support.live import WAIT_S, live_server
from support.pages import conversation, new_page, open_conversation, paused_on_one_call

pytestmark = pytest.mark.asyncio(loop_scope="session")

STOPPED = (
    "Stopped while running (the run was cancelled): it may have happened. It was not run again."
)


class _Gate:
    """A tool handler that blocks until the test opens the gate, then has its effect."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.done = threading.Event()

    def handler(self, args: dict[str, Any], ctx: ToolContext) -> str:
        self.started.set()
        assert self.release.wait(WAIT_S), "the test never opened the gate"
        key = ctx.store.add("lines", args["text"], label=f"line {args['text']}")
        self.done.set()
        return f"Wrote line {key}: {args['text']}"


async def test_a_call_stopped_while_its_tool_runs_says_it_may_have_happened(
    browser: Browser, app_settings: Settings, tmp_path: Path
) -> None:
    gate = _Gate()
    slow = tool(
        name="test.slow_write",
        title="Write slowly",
        description="Writes a line, slowly.",
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string", "title": "Text"}},
            "required": ["text"],
        },
        permission=Permission.ASK,
        write=True,
    )(gate.handler)
    model = ScriptedChatModel(
        responses=[scripted_message("Writing.", ("test_slow_write", {"text": "x"})), "Ok."]
    )
    async with live_server(app_settings, model=model) as server:
        server.services.registry.register_many([slow])
        try:
            async with new_page(browser, server.url) as page:
                conversation_id = await server.new_conversation()
                await server.say(conversation_id, "write it")
                await open_conversation(page, conversation_id)
                row, _call_id = await paused_on_one_call(page)
                await expect(row.locator(".tool-title")).to_have_text("Write slowly")
                await row.get_by_test_id("approve").click()

                # Running: the badge says so, and Stop is offered.
                await expect(row).to_have_attribute("data-status", "running")
                await expect(row.get_by_test_id("tool-status")).to_contain_text("Running")
                assert await asyncio.to_thread(gate.started.wait, WAIT_S), "never started"
                await page.get_by_test_id("cancel-run").click()

                async def expect_may_have_happened() -> None:
                    await expect(row).to_have_attribute("data-status", "failed")
                    await expect(row.get_by_test_id("tool-status")).to_have_text(
                        "May have happened"
                    )
                    error = row.get_by_test_id("tool-error")
                    await expect(error).to_have_text(STOPPED)
                    await expect(error).to_have_attribute("data-code", "outcome_unknown")
                    # What to do next, naming the call as its card does.
                    await expect(row.get_by_test_id("next-step")).to_have_text(
                        "Before trying again, check whether this happened: Write slowly: x."
                    )
                    await expect(row.get_by_test_id("undo")).to_have_count(0)
                    await expect(conversation(page)).to_have_attribute("data-status", "idle")

                await expect_may_have_happened()
                # The operation log says the same.
                await page.get_by_test_id("log-toggle").click()
                logged = page.get_by_test_id("log-row")
                await expect(logged).to_have_count(1)
                await expect(logged.get_by_test_id("log-status")).to_have_text("May have happened")
                await page.screenshot(path=tmp_path / "may-have-happened.png", full_page=True)

                # It did happen after all: the open card says so, live, and on a reload.
                gate.release.set()
                assert await asyncio.to_thread(gate.done.wait, WAIT_S), "never finished"

                async def expect_happened_late() -> None:
                    await expect(row).to_have_attribute("data-status", "succeeded")
                    await expect(row.get_by_test_id("tool-status")).to_have_text(
                        "Happened after it was stopped"
                    )
                    await expect(row.get_by_test_id("tool-result")).to_have_text("Wrote line 1: x")
                    await expect(row.get_by_test_id("tool-error")).to_have_count(0)
                    await expect(row.get_by_test_id("next-step")).to_have_count(0)
                    await expect(row.get_by_test_id("undo")).to_have_count(1)
                    await expect(conversation(page)).to_have_attribute("data-status", "idle")

                await expect_happened_late()
                await expect(logged.get_by_test_id("log-status")).to_have_text(
                    "Happened after it was stopped"
                )
                await page.screenshot(path=tmp_path / "happened-late.png", full_page=True)
                await server.services.engine.late.wait(WAIT_S)
                await page.reload()
                await expect_happened_late()
        finally:
            gate.release.set()
