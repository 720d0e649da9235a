"""Cards a person can judge (issue 6), in Chromium: readable fields, diffs, many calls at once,
long results, hostile text.

The app runs with the offline model and a test-only skill folder (``skills/cardlab``: a long
text tool, a large result tool, a tool with hostile titles). Conversations are started through
the API and then opened in the page; every wait is a bounded Playwright ``expect``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Locator, Page, expect

from support.live import LiveServer
from support.pages import (
    conversation,
    messages,
    notes,
    only_waiting,
    open_conversation,
    stored_call,
    tool_call,
    waiting,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")

CARDLAB = Path(__file__).parent / "skills"
DOCS = Path(__file__).resolve().parents[2] / "docs"
RESPONSIVE_MS = 5_000
"""Bound for the composer to show what was typed while a large result is on the page
(a page blocked while it renders misses it; a loaded CI machine does not)."""


@pytest.fixture
def app_overrides() -> dict[str, Any]:
    return {"skills_path": [CARDLAB]}


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
    return f"use {tool} with {json.dumps(args)}"


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
    await expect(fields.nth(0)).to_contain_text("One line.")
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


async def test_the_modal_traps_focus_closes_without_deciding_and_holds_while_deciding(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    memo = "# Memo\n\nHello **team**. <script>window.__pwned=1</script> [ok](https://example.org)"
    conversation_id = await start(app, page, use("cardlab.memo", {"body": memo}))
    row, call_id = await only_waiting(page)
    opener = row.get_by_test_id("markdown-open")
    modal = page.get_by_test_id("markdown-modal")

    # Focus lands on Cancel; Esc closes without deciding and focus returns to the opener.
    await opener.click()
    await expect(modal).to_be_visible()
    await expect(modal.get_by_test_id("modal-cancel")).to_be_focused()
    await expect(modal.locator(".markdown strong")).to_have_text("team")
    await expect(modal.locator("script")).to_have_count(0)
    await page.keyboard.press("Escape")
    await expect(modal).to_have_count(0)
    await expect(opener).to_be_focused()

    # Tab stays inside the dialog (it wraps from the last control to the first).
    await opener.click()
    await expect(modal.get_by_test_id("modal-cancel")).to_be_focused()
    for _ in range(8):
        await page.keyboard.press("Tab")
        assert await modal.evaluate("d => d.contains(document.activeElement)")

    # The backdrop and Cancel close it too; nothing was decided.
    box = await modal.bounding_box()
    assert box is not None
    await page.mouse.click(box["x"] + box["width"] + 5, box["y"] + 5)
    await expect(modal).to_have_count(0)
    await opener.click()
    await modal.get_by_test_id("modal-cancel").click()
    await expect(modal).to_have_count(0)
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["decision"] is None

    # While the decision is in flight the modal cannot close and its button shows progress.
    held: list[Any] = []

    async def hold(route: Any) -> None:
        held.append(route)

    await page.route(f"**/api/tool-calls/{call_id}/decision", hold)
    await opener.click()
    await modal.get_by_test_id("approve").click()
    await expect(modal.get_by_test_id("approve")).to_be_disabled()
    await expect(modal.get_by_test_id("approve").locator(".spinner")).to_have_count(1)
    await expect(modal.get_by_test_id("modal-cancel")).to_be_disabled()
    await page.keyboard.press("Escape")
    await expect(modal).to_be_visible()
    await shot(page, tmp_path, "modal-busy.png")
    assert len(held) == 1
    await held[0].continue_()
    await page.unroute(f"**/api/tool-calls/{call_id}/decision")
    await expect(modal).to_have_count(0)
    await expect(row).to_have_attribute("data-status", "succeeded")
    await expect(row.get_by_test_id("decision")).to_have_text("Approved")


async def test_the_delete_card_names_the_note_and_its_button_says_delete(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    conversation_id = await app.new_conversation()
    await app.say(conversation_id, "add a note buy milk")
    await app.idle()
    [added] = (await app.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    assert (await app.decide(added["id"], type="approve")).status_code == 200
    await app.idle()
    [(note_id, _)] = notes(app)
    await app.say(conversation_id, f"delete note {note_id}")
    await app.idle()
    await open_conversation(page, conversation_id)

    row, call_id = await only_waiting(page)
    summary = row.get_by_test_id("card-summary")
    await expect(summary).to_contain_text("buy milk")
    await expect(summary).to_contain_text(f"#{note_id}")
    await expect(row.locator(".card")).to_contain_text("deletes data")
    action = row.get_by_test_id("approve")
    await expect(action).to_have_text("Delete")
    await expect(action).to_have_class(re.compile(r"\bdanger\b"))
    # The focus is on Reject, never on the destructive action.
    await expect(row.get_by_test_id("reject")).to_be_focused()
    await expect(row.get_by_test_id("json-view")).to_have_count(0)
    await shot(page, tmp_path, "delete-card.png", row)

    await action.click()
    await expect(row).to_have_attribute("data-status", "succeeded")
    await expect(row.get_by_test_id("decision")).to_have_text("Approved")
    await expect(row.get_by_test_id("decision-by")).to_contain_text("by ")
    assert notes(app) == []
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["decision"]["type"] == "approve"


async def test_the_documents_modal_opens_edits_and_approves_and_esc_decides_nothing(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    conversation_id = await app.new_conversation()
    first = "# Plan\n\n- one\n- two\n"
    await app.say(conversation_id, use("documents.write", {"title": "Plan", "markdown": first}))
    await app.idle()
    [written] = (await app.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    assert (await app.decide(written["id"], type="approve")).status_code == 200
    await app.idle()
    second = (
        "# Plan\n\n- one\n- two, revised\n"
        "- three <script>window.__pwned=1</script> [x](javascript:alert(1))\n"
    )
    await app.say(conversation_id, use("documents.write", {"title": "Plan", "markdown": second}))
    await app.idle()
    await open_conversation(page, conversation_id)

    row, call_id = await only_waiting(page)
    await expect(row.get_by_test_id("card-summary")).to_contain_text("Plan")
    review = row.get_by_test_id("document-review")
    await review.click()
    modal = page.get_by_test_id("document-modal")
    await expect(modal).to_be_visible()
    await expect(modal.get_by_test_id("modal-cancel")).to_be_focused()
    preview = modal.get_by_test_id("document-panel-preview")
    await expect(preview.locator("li")).to_have_count(3)
    await expect(preview.locator("script")).to_have_count(0)
    await expect(preview.locator('a[href^="javascript"]')).to_have_count(0)

    # Esc closes it without deciding; the focus goes back to Review.
    await page.keyboard.press("Escape")
    await expect(modal).to_have_count(0)
    await expect(review).to_be_focused()
    assert (await stored_call(app, conversation_id, call_id))["decision"] is None

    # The diff against the stored document.
    await review.click()
    await modal.get_by_test_id("document-tab-changes").click()
    diff = modal.get_by_test_id("text-diff")
    await expect(diff.locator('[data-kind="removed"]')).to_have_count(1)
    await expect(diff.locator('[data-kind="removed"]')).to_contain_text("- two")
    await expect(diff.locator('[data-kind="added"]').first).to_contain_text("- two, revised")
    await shot(page, tmp_path, "documents-modal.png")

    # Edit the source: the button says so, and the edited text is what runs.
    await modal.get_by_test_id("document-tab-source").click()
    source = modal.get_by_test_id("document-source")
    await expect(source).to_have_value(second)
    await source.fill(second + "- four\n")
    approve = modal.get_by_test_id("document-approve")
    await expect(approve).to_have_text("Save edits and approve")
    await modal.get_by_test_id("document-tab-preview").click()
    await expect(preview.locator("li")).to_have_count(4)
    await approve.click()
    await expect(modal).to_have_count(0)
    await expect(row).to_have_attribute("data-status", "succeeded")
    await expect(row.get_by_test_id("decision")).to_have_text("Edited and approved")
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["executed_args"]["markdown"] == second + "- four\n"
    assert await page.evaluate("window.__pwned") is None


async def test_hostile_text_in_a_confirmation_summary_and_detail_stays_inert(
    app: LiveServer, page: Page
) -> None:
    hostile = '<img src=x onerror="window.__pwned=1"> <a href="javascript:alert(1)">go</a>'
    await start(app, page, f"add a note {hostile}")
    row, _ = await only_waiting(page)
    summary = row.get_by_test_id("card-summary")
    await expect(summary).to_contain_text('<img src=x onerror="window.__pwned=1">')
    await row.get_by_test_id("card-details").click()
    await expect(row.get_by_test_id("card-detail")).to_contain_text("<a href=")
    await expect(row.locator("img, a[href^='javascript']")).to_have_count(0)
    await row.get_by_test_id("approve").click()
    await expect(row).to_have_attribute("data-status", "succeeded")
    await expect(page.locator("img, a[href^='javascript']")).to_have_count(0)
    assert await page.evaluate("window.__pwned") is None
