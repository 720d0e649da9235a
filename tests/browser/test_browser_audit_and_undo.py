"""Issue 8 in Chromium: Undo/Redo on a write call's card, and the Audit page's filters.

Real app (built client + API + offline model + SQLite); every wait is a bounded ``expect``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Locator, Page, Route, expect

from support.a11y import axe_violations, report
from support.live import LiveServer
from support.pages import conversation, notes, paused_on_one_call, send, start_chat
from support.sse import collect, terminals

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _approve_the_card(page: Page, title: str) -> Locator:
    """Approve the one waiting call (of tool ``title``); return its row once it succeeded."""
    row, _call_id = await paused_on_one_call(page)
    await expect(row.locator(".tool-title")).to_contain_text(title)
    await row.get_by_test_id("approve").click()
    await expect(row).to_have_attribute("data-status", "succeeded")
    await expect(conversation(page)).to_have_attribute("data-status", "idle")
    return row


async def test_undo_and_redo_on_a_card_and_the_refusal_when_a_later_call_changed_the_note(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    await page.goto("/")
    await start_chat(page, "add a note buy milk")
    added = await _approve_the_card(page, "Add a note")
    [(note_id, text)] = notes(app)
    assert text == "buy milk"

    await added.get_by_test_id("undo").click()
    await expect(added.get_by_test_id("undo-row")).to_have_attribute("data-undo-state", "undone")
    await expect(added.get_by_test_id("undo-row")).to_contain_text(
        "Undone: the changes were put back."
    )
    assert notes(app) == []
    await added.get_by_test_id("redo").click()
    await expect(added.get_by_test_id("undo-row")).to_have_attribute("data-undo-state", "available")
    assert notes(app) == [(note_id, "buy milk")]

    # A later call deletes the same note: undoing the add is refused, naming the delete.
    await send(page, f"delete note {note_id}")
    deleted = await _approve_the_card(page, "Delete a note")
    assert notes(app) == []
    await added.get_by_test_id("undo").click()
    await expect(added.get_by_test_id("undo-error")).to_have_text(
        f"Cannot undo: note #{note_id}: “buy milk” was changed later by “Delete a note”. "
        "Undo that call first."
    )
    await expect(added.get_by_test_id("undo-row")).to_have_attribute("data-undo-state", "available")
    # Undo the delete, then the add: both go through.
    await deleted.get_by_test_id("undo").click()
    await expect(deleted.get_by_test_id("undo-row")).to_have_attribute("data-undo-state", "undone")
    assert notes(app) == [(note_id, "buy milk")]
    await added.get_by_test_id("undo").click()
    await expect(added.get_by_test_id("undo-row")).to_have_attribute("data-undo-state", "undone")
    assert notes(app) == []
    await page.screenshot(path=tmp_path / "undo.png", full_page=True)

    # Undone state survives a reload.
    await page.reload()
    await expect(added.get_by_test_id("undo-row")).to_have_attribute("data-undo-state", "undone")


async def _decided(app: LiveServer, text: str, decision: dict[str, str]) -> None:
    conversation_id = await app.new_conversation()
    await app.say(conversation_id, f"add a note {text}")
    log = await collect(app.client, conversation_id, until=terminals(1))
    [call] = [e["tool_call"]["id"] for e in log.of("tool_call.interrupted")]
    assert (await app.decide(call, **decision)).status_code == 200
    await app.idle()


async def test_the_audit_page_lists_filters_and_shows_tool_metrics(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    await _decided(app, "first", {"type": "approve"})
    await _decided(app, "second", {"type": "reject", "message": "not this one"})
    await _decided(app, "third", {"type": "approve"})

    await page.goto("/")
    await page.get_by_test_id("audit-link").click()
    await expect(page.get_by_test_id("audit-page")).to_be_visible()
    rows = page.get_by_test_id("audit-row")
    await expect(rows).to_have_count(3)
    await expect(page.get_by_test_id("audit-total")).to_have_text("3 records, newest first.")
    await expect(rows.first).to_contain_text("Add a note")
    metrics = page.locator('[data-testid="metrics-row"][data-tool="notes.add"]')
    await expect(metrics).to_contain_text("Add a note")
    await expect(metrics.locator(".outcome-bar")).to_have_attribute(
        "aria-label", "Approved: 2, Rejected: 1"
    )

    await page.get_by_test_id("filter-outcome").select_option("rejected")
    await expect(rows).to_have_count(1)
    await expect(rows.first).to_have_attribute("data-outcome", "rejected")
    await expect(rows.first).to_contain_text("Rejected")
    await expect(rows.first).to_contain_text("“not this one”")
    await expect(page.get_by_test_id("audit-total")).to_have_text("1 record match, newest first.")

    await page.get_by_test_id("filter-outcome").select_option("")
    await page.get_by_test_id("filter-tool").select_option("notes.list")
    await expect(page.get_by_test_id("audit-empty")).to_have_text("No records match these filters.")
    await page.get_by_test_id("filter-clear").click()
    await expect(rows).to_have_count(3)

    # A time range that ends before anything happened.
    await page.get_by_test_id("filter-to").fill("2020-01-01T00:00")
    await expect(page.get_by_test_id("audit-empty")).to_be_visible()
    await expect(page.get_by_test_id("metrics-empty")).to_be_visible()
    await page.get_by_test_id("filter-clear").click()
    await expect(rows).to_have_count(3)
    await page.screenshot(path=tmp_path / "audit.png", full_page=True)
    violations = await axe_violations(page)
    assert violations == [], report(violations)


async def test_the_audit_table_shows_its_details_column_in_a_1200px_window(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    long_word = "x" * 150
    await _decided(app, f"a {long_word} note", {"type": "reject", "message": f"no {long_word}"})
    await page.set_viewport_size({"width": 1200, "height": 800})

    await page.goto("/")
    await page.get_by_test_id("audit-link").click()
    await expect(page.get_by_test_id("audit-row")).to_have_count(1)
    await page.get_by_test_id("audit-row").get_by_test_id("view-json").click()
    await page.screenshot(path=tmp_path / "audit-1200.png")
    wrap = await page.locator(".table-wrap", has=page.get_by_test_id("audit-table")).bounding_box()
    details = await page.get_by_test_id("audit-row").locator(".audit-details").bounding_box()
    panel = await page.get_by_test_id("audit-page").bounding_box()
    assert wrap and details and panel
    # The Details cell lies inside the table's box, and that box inside the page's panel
    # and the window (the table scrolls sideways inside the box when it is wider).
    assert details["x"] + details["width"] <= wrap["x"] + wrap["width"] + 1
    assert wrap["x"] + wrap["width"] <= panel["x"] + panel["width"] + 1
    assert panel["x"] + panel["width"] <= 1200


async def test_the_audit_page_says_a_failed_load_with_a_heading_and_try_again(
    app: LiveServer, page: Page
) -> None:
    """Found in a tryout: the load error was a red sentence with no heading or next step."""
    failing = {"on": True}

    async def audit(route: Route) -> None:
        if failing["on"]:
            body = {"error": {"code": "internal", "message": "The database is not answering."}}
            await route.fulfill(status=500, json=body)
        else:
            await route.continue_()

    await page.route(lambda url: url.split("?")[0].endswith("/api/audit"), audit)
    await page.goto("/")
    await page.get_by_test_id("audit-link").click()
    problem = page.get_by_test_id("audit-error")
    await expect(problem.get_by_role("heading", level=2)).to_have_text(
        "The records could not be loaded"
    )
    await expect(problem).to_contain_text("The database is not answering.")
    failing["on"] = False
    await problem.get_by_role("button", name="Try again").click()
    await expect(problem).to_have_count(0)
    await expect(page.get_by_test_id("audit-empty")).to_be_visible()
