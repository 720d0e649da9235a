"""Cards a person can judge (issue 6), in Chromium: readable fields, diffs, many calls at once,
long results, hostile text.

The app runs with the offline model and a test-only skill folder (``skills/cardlab``: a long
text tool, a large result tool, a tool with hostile titles). Conversations are started through
the API and then opened in the page; every wait is a bounded Playwright ``expect``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Locator, Page, expect

from support.card_pages import CARDLAB, shot, start, use
from support.live import LiveServer
from support.pages import (
    conversation,
    messages,
    notes,
    only_waiting,
    stored_call,
    tool_call,
    waiting,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")

RESPONSIVE_MS = 5_000
"""Bound for the composer to show what was typed while a large result is on the page
(a page blocked while it renders misses it; a loaded CI machine does not)."""


@pytest.fixture
def app_overrides() -> dict[str, Any]:
    """The app serves the test-only skill folder too."""
    return {"skills_path": [CARDLAB]}


# --------------------------------------------------------------------------------------------


async def test_three_pending_calls_show_progress_and_approve_all_decides_the_rest(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    conversation_id = await start(
        app, page, "add a note one and add a note two and add a note three"
    )
    await expect(conversation(page)).to_have_attribute("data-status", "paused")
    rows = waiting(page)
    await expect(rows).to_have_count(3)
    bar = page.get_by_test_id("batch-bar")
    await expect(bar.get_by_test_id("batch-count")).to_have_text("0 of 3 decided")
    for i in range(3):
        await expect(rows.nth(i).get_by_test_id("tool-status")).to_have_text("Waiting for you")

    first = tool_call(page, str(await rows.nth(0).get_attribute("data-tool-call-id")))
    await first.get_by_test_id("approve").click()
    await expect(bar.get_by_test_id("batch-count")).to_have_text("1 of 3 decided")
    await expect(first.get_by_test_id("decision")).to_have_text("Approved")
    await expect(first.get_by_test_id("approve")).to_have_count(0)
    await expect(first.get_by_test_id("tool-status")).to_have_text(
        "Approved — waiting for the other decisions"
    )
    await shot(page, tmp_path, "approve-all.png")

    await bar.get_by_test_id("approve-all").click()
    done = page.locator('[data-testid="tool-call"][data-status="succeeded"]')
    await expect(done).to_have_count(3)
    await expect(page.get_by_test_id("batch-bar")).to_have_count(0)
    await expect(conversation(page)).to_have_attribute("data-status", "idle")
    assert sorted(text for _, text in notes(app)) == ["one", "three", "two"]
    detail = (await app.client.get(f"/api/conversations/{conversation_id}")).json()
    calls = [c for m in detail["messages"] for c in m["tool_calls"]]
    assert [c["decision"]["type"] for c in calls] == ["approve"] * 3


async def test_reject_all_gives_every_remaining_call_the_one_reason(
    app: LiveServer, page: Page
) -> None:
    await start(app, page, "add a note red and add a note blue")
    await expect(waiting(page)).to_have_count(2)
    bar = page.get_by_test_id("batch-bar")
    await bar.get_by_test_id("reject-all").click()
    await bar.get_by_test_id("reject-all-reason").fill("not today")
    await bar.get_by_test_id("reject-all-confirm").click()
    rejected = page.locator('[data-testid="tool-call"][data-status="rejected"]')
    await expect(rejected).to_have_count(2)
    for i in range(2):
        await expect(rejected.nth(i).get_by_test_id("decision")).to_have_text("Rejected: not today")
    assert notes(app) == []


async def test_a_long_text_edit_shows_a_line_diff_that_survives_a_reload(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    body = "\n".join(f"Paragraph {i}: the quick brown fox." for i in range(1, 201))
    conversation_id = await start(
        app, page, use("cardlab.publish", {"headline": "Launch", "body": body, "tags": ["a", "b"]})
    )
    row, call_id = await only_waiting(page)

    # Labelled fields in schema order; the 200-line body folds; JSON only behind a click.
    fields = row.get_by_test_id("arg-field")
    await expect(fields).to_have_count(3)
    await expect(fields.nth(0)).to_contain_text("Headline")
    # The field's description is help for the model, not shown to the person.
    await expect(fields.nth(0)).not_to_contain_text("One line.")
    await expect(fields.nth(1)).to_contain_text("Body")
    await expect(fields.nth(2).locator("li")).to_have_text(["a", "b"])
    await expect(row.get_by_test_id("json-view")).to_have_count(0)
    show_all = row.get_by_test_id("arg-show-all")
    await expect(show_all).to_contain_text("200 lines")
    await show_all.click()
    text = row.get_by_test_id("arg-text")
    await expect(text).to_contain_text("Paragraph 200: the quick brown fox.")
    assert await text.evaluate("el => el.scrollHeight > el.clientHeight")  # scrollable
    await row.get_by_test_id("view-json").click()
    await expect(row.get_by_test_id("json-view")).to_contain_text('"headline": "Launch"')
    await row.get_by_test_id("view-json").click()
    await expect(row.get_by_test_id("json-view")).to_have_count(0)

    # Edit one line of the body and the headline.
    await row.get_by_test_id("edit").click()
    field = row.locator(f"#edit_{call_id}_body")
    await expect(field).to_have_value(body)
    await field.fill(body.replace("Paragraph 100: the quick", "Paragraph 100: the slow"))
    await row.locator(f"#edit_{call_id}_headline").fill("Launch day")
    await row.get_by_test_id("edit-submit").click()
    await expect(row).to_have_attribute("data-status", "succeeded")

    async def expect_diff(row: Locator) -> None:
        await expect(row.get_by_test_id("decision")).to_have_text("Edited and approved")
        await expect(row.get_by_test_id("decision-by")).to_contain_text("at ")
        changed = row.get_by_test_id("diff-field")
        await expect(changed).to_have_count(2)
        headline = changed.filter(has_text="Headline")
        await expect(headline.get_by_test_id("diff-before")).to_have_text("Launch")
        await expect(headline.get_by_test_id("diff-after")).to_have_text("Launch day")
        lines = changed.filter(has_text="Body")
        await expect(lines.locator('[data-kind="removed"]')).to_have_count(1)
        await expect(lines.locator('[data-kind="removed"]')).to_contain_text(
            "Paragraph 100: the quick brown fox."
        )
        await expect(lines.locator('[data-kind="added"]')).to_contain_text(
            "Paragraph 100: the slow brown fox."
        )
        await expect(lines).to_contain_text("1 line added, 1 removed")
        await expect(lines).to_contain_text("unchanged lines")
        await expect(row).not_to_contain_text("Executed with")

    await expect_diff(row)
    await shot(page, tmp_path, "edit-diff.png", row)
    await page.reload()
    await expect_diff(tool_call(page, call_id))
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["executed_args"]["headline"] == "Launch day"


async def test_a_5_mb_result_stays_responsive_and_show_all_opens_it_whole(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    conversation_id = await start(app, page, use("cardlab.dump", {"kilobytes": 5120}))
    rows = page.locator('[data-testid="tool-call"][data-tool-name="cardlab.dump"]')
    await expect(rows).to_have_attribute("data-status", "succeeded")
    result = rows.get_by_test_id("folded")
    await expect(result).to_contain_text("line 00000000")
    show_all = result.get_by_test_id("show-all")
    await expect(show_all).to_contain_text("Show all (")

    # The page answers: typing shows at once.
    box = page.get_by_test_id("composer-input")
    await box.click()
    await box.press_sequentially("still quick")
    await expect(box).to_have_value("still quick", timeout=RESPONSIVE_MS)
    await box.fill("")

    await show_all.click()
    modal = page.get_by_test_id("full-text-modal")
    await expect(modal).to_be_visible()
    await expect(modal.get_by_test_id("modal-cancel")).to_be_focused()
    full = modal.get_by_test_id("full-text")
    await expect(full).to_contain_text("line 00081919")  # the last of 5 MiB of lines
    await expect(modal.get_by_test_id("full-size")).to_contain_text("5,242,880 characters")
    await expect(modal.get_by_test_id("download-text")).to_be_enabled()
    async with page.expect_download() as download_info:
        await modal.get_by_test_id("download-text").click()
    download = await download_info.value
    assert download.suggested_filename.endswith(".txt")
    await page.keyboard.press("Escape")
    await expect(modal).to_have_count(0)
    await expect(show_all).to_be_focused()  # focus returns to the opener
    await box.press_sequentially("ok")
    await expect(box).to_have_value("ok", timeout=RESPONSIVE_MS)
    assert conversation_id


async def test_hostile_text_in_titles_fields_diffs_and_results_stays_inert(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    hostile = '<img src=x onerror="window.__pwned=1"> [x](javascript:alert(1)) <b>bold</b>'
    await start(app, page, use("cardlab.hostile", {"text": hostile, "link": "javascript:alert(1)"}))
    row, call_id = await only_waiting(page)
    await expect(row.get_by_test_id("arg-field").first).to_contain_text("<img src=x onerror=")
    await expect(row.locator("img, script, b")).to_have_count(0)
    await row.get_by_test_id("edit").click()
    await row.locator(f"#edit_{call_id}_text").fill(hostile + " <i>edited</i>")
    await row.get_by_test_id("edit-submit").click()
    await expect(row).to_have_attribute("data-status", "succeeded")
    await expect(row.get_by_test_id("diff-field")).to_contain_text("<i>edited</i>")
    await expect(row.locator("img, script, b, i")).to_have_count(0)
    hrefs = await page.locator("a[href]").evaluate_all("els => els.map(e => e.href)")
    assert all(h.startswith(("http:", "https:", "mailto:")) for h in hrefs), hrefs
    assert await page.evaluate("window.__pwned") is None
    await expect(messages(page, "assistant").last).to_be_visible()
