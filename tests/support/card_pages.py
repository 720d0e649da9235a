"""Browser-test helpers for the card tests: the test-only skill folder, opening a conversation
with a request, and screenshots (some of them the README's)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from playwright.async_api import Locator, Page

from support.live import LiveServer
from support.pages import open_conversation

CARDLAB = Path(__file__).resolve().parents[1] / "browser" / "skills"
"""The test-only skill folder (``cardlab``: long text, large result, hostile titles)."""
DOCS = Path(__file__).resolve().parents[2] / "docs"
"""The README's screenshots."""


DOC_SHOTS = {"delete-card.png", "edit-diff.png", "documents-modal.png"}
"""Screenshots linked from the README (copied to docs/ with INTERLOCK_TEST_DOCS_SCREENSHOTS=1)."""


async def shot(page: Page, tmp_path: Path, name: str, target: Locator | None = None) -> None:
    """Screenshot the page (or ``target``, whole) into the test's folder, and maybe docs/."""
    path = tmp_path / name
    if target is None:
        await page.screenshot(path=path)
    else:
        size = page.viewport_size or {"width": 1280, "height": 860}
        box = await target.bounding_box()
        height = int(box["height"]) + 400 if box else size["height"]
        await page.set_viewport_size(
            {"width": size["width"], "height": max(size["height"], height)}
        )
        await target.scroll_into_view_if_needed()
        await target.screenshot(path=path)
        await page.set_viewport_size(size)
    if name in DOC_SHOTS and os.environ.get("INTERLOCK_TEST_DOCS_SCREENSHOTS") == "1":
        shutil.copyfile(path, DOCS / name)


async def start(app: LiveServer, page: Page, text: str) -> str:
    """A new conversation with Ada, ``text`` sent, the run settled, opened in the page."""
    conversation_id = await app.new_conversation()
    await app.say(conversation_id, text)
    await app.idle()
    await open_conversation(page, conversation_id)
    return conversation_id


def use(tool: str, args: dict[str, Any]) -> str:
    """A request the offline model reads as a call of ``tool`` with ``args``."""
    return f"use {tool} with {json.dumps(args)}"
