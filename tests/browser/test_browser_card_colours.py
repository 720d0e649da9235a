"""What a decided card's colours say, in Chromium: an approved call that did not run reads as
a failure (the danger colour), not in the green of the approval above it.

The real app (built client + API + offline model + SQLite); every wait is a bounded
Playwright ``expect``.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from support.live import LiveServer
from support.pages import conversation, notes, tool_call

pytestmark = pytest.mark.asyncio(loop_scope="session")

DANGER = "rgb(198, 61, 61)"
"""``--danger`` of styles.css."""
OK = "rgb(31, 138, 76)"
"""``--ok`` of styles.css."""


async def waiting_call(app: LiveServer, text: str) -> tuple[str, str]:
    """A conversation paused on one call after ``text``: (conversation id, call id)."""
    conversation_id = await app.new_conversation()
    await app.say(conversation_id, text)
    await app.idle()
    pending = (await app.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    assert len(pending) == 1, pending
    return conversation_id, str(pending[0]["id"])


async def test_an_approved_call_that_did_not_run_shows_not_run_in_the_danger_colour(
    app: LiveServer, page: Page
) -> None:
    _, add = await waiting_call(app, "add a note delete me twice")
    assert (await app.decide(add, type="approve")).status_code == 200
    await app.idle()
    [(note_id, _text)] = notes(app)
    # Two deletes of the same note wait side by side; the second runs after the first.
    _, first = await waiting_call(app, f"delete note {note_id}")
    second_conversation, second = await waiting_call(app, f"delete note {note_id}")
    assert (await app.decide(first, type="approve")).status_code == 200
    await app.idle()
    assert (await app.decide(second, type="approve")).status_code == 200
    await app.idle()

    await page.goto(f"/#/c/{second_conversation}")
    await expect(conversation(page)).to_have_attribute("data-status", "idle")
    card = tool_call(page, second)
    await expect(card.get_by_test_id("decision")).to_have_text("Approved")
    await expect(card.get_by_test_id("decision")).to_have_css("color", OK)
    not_run = card.get_by_test_id("not-run")
    await expect(not_run).to_contain_text("Not run")
    await expect(not_run).to_have_css("color", DANGER)
