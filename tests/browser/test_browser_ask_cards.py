"""The ``ask`` skill's cards in Chromium: Scout's form checked again by the server, its
choice and confirm cards.

Each test drives the real app (built ``client-web/dist`` + API + offline model + SQLite, see
``conftest.py``), answers the cards with the ``respond`` decision, and checks what the page
shows and what the server stored. Every wait is a bounded Playwright ``expect``; no sleeps.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from support.employee_pages import (
    decision_posts,
    employee_option,
    expect_form_closed,
    form_field,
    opened,
    paused_call,
    pending_ids,
)
from support.live import LiveServer
from support.pages import (
    conversation,
    finished,
    messages,
    open_app,
    send,
    start_chat,
    stored_call,
    tool_call,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


# --------------------------------------------------------------------------------------------
# ask.form: the server's check of the answer
# --------------------------------------------------------------------------------------------


async def test_form_answer_refused_by_the_server_shows_field_errors_then_a_valid_one_runs(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    # Ada does not pin the ask skill: the offline model loads it first (ALLOW, no card).
    await open_app(page)
    conversation_id = await start_chat(page, "ask me for my details", "assistant")

    row, call_id = await paused_call(page, "Ask to fill in a form")
    loaded = page.locator('[data-testid="tool-call"][data-status="succeeded"]')
    await expect(loaded).to_have_count(1)
    await expect(loaded.locator(".tool-args")).to_have_text("Skill: ask")
    await expect(loaded.locator(".card")).to_have_count(0)
    posts = decision_posts(page)
    name, email, age = (form_field(row, call_id, f) for f in ("name", "email", "age"))

    # The browser's own checks (required, min) stop an empty name and a negative age.
    await email.fill("ada@example.com")
    await age.fill("-1")
    await row.get_by_test_id("form-submit").click()
    assert await name.evaluate("el => el.validity.valueMissing") is True
    assert await age.evaluate("el => el.validity.rangeUnderflow") is True
    await expect(row.get_by_test_id("field-error")).to_have_count(0)
    assert posts == []

    # Past them (as a script or another client could be), the server's check refuses it.
    await row.locator("form").evaluate("form => { form.noValidate = true; }")
    await row.get_by_test_id("form-submit").click()
    errors = row.get_by_test_id("field-error")
    await expect(errors).to_have_count(2)
    await expect(errors.nth(0)).to_have_attribute("data-path", "age")
    await expect(errors.nth(0)).to_have_attribute("data-rule", "minimum")
    await expect(errors.nth(1)).to_have_attribute("data-path", "name")
    await expect(errors.nth(1)).to_have_attribute("data-rule", "required")
    await expect(errors.nth(1)).to_contain_text("Name: Is required.")
    # ... and each also shows next to its field.
    await expect(row.locator(f"#form_{call_id}_age__error")).to_contain_text("0")
    await expect(row.locator(f"#form_{call_id}_name__error")).to_contain_text("Is required.")
    await page.screenshot(path=tmp_path / "form-invalid.png", full_page=True)

    assert len(posts) == 1, posts
    assert posts[0]["type"] == "respond"
    assert json.loads(posts[0]["message"]) == {"email": "ada@example.com", "age": -1}

    # The card stays live: still waiting, no decision recorded, the values kept.
    await expect(row).to_have_attribute("data-status", "interrupted")
    await expect(row.get_by_test_id("decision")).to_have_count(0)
    await expect(row.get_by_test_id("form-submit")).to_be_enabled()
    await expect(email).to_have_value("ada@example.com")
    await expect(conversation(page)).to_have_attribute("data-status", "paused")
    assert await pending_ids(app, conversation_id) == [call_id]
    assert (await stored_call(app, conversation_id, call_id))["decision"] is None

    await name.fill("Ada Lovelace")
    await age.fill("36")
    await row.get_by_test_id("form-submit").click()

    await finished(page, row)
    await expect(row.get_by_test_id("field-error")).to_have_count(0)
    await expect(row.get_by_test_id("decision")).to_have_text(
        "Answered: Name: Ada Lovelace · Email: ada@example.com · Age: 36"
    )
    await expect_form_closed(row, call_id)
    await expect(messages(page, "assistant").last).to_contain_text("Thanks, Ada Lovelace!")
    await page.screenshot(path=tmp_path / "form-valid.png", full_page=True)

    assert len(posts) == 2, posts
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["status"] == "succeeded"
    assert json.loads(stored["decision"]["message"]) == {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "age": 36,
    }
    assert await pending_ids(app, conversation_id) == []


async def test_form_email_the_browser_accepts_but_the_server_refuses_keeps_the_card_live(
    app: LiveServer, page: Page
) -> None:
    # A form whose field has "format": "email": the browser's check (input type=email) is
    # looser than the server's (email-validator: no special-use domains such as .test).
    fields = {
        "type": "object",
        "properties": {"email": {"type": "string", "format": "email", "title": "Email"}},
        "required": ["email"],
    }
    args = json.dumps({"title": "Contact", "fields": fields})
    await open_app(page)
    conversation_id = await start_chat(page, f"use ask.form with {args}", "scout")

    row, call_id = await paused_call(page, "Ask to fill in a form")
    await expect(row.locator("section.form-card h4")).to_have_text("Contact")
    email = form_field(row, call_id, "email")
    await expect(email).to_have_attribute("type", "email")
    posts = decision_posts(page)

    await email.fill("grace@mail.test")
    assert await email.evaluate("el => el.validity.valid") is True
    await row.get_by_test_id("form-submit").click()
    error = row.get_by_test_id("field-error")
    await expect(error).to_have_count(1)
    await expect(error).to_have_attribute("data-path", "email")
    await expect(error).to_have_attribute("data-rule", "format")
    await expect(error).to_contain_text("Must be a valid email address.")
    await expect(row).to_have_attribute("data-status", "interrupted")
    await expect(row.get_by_test_id("decision")).to_have_count(0)
    await expect(email).to_have_value("grace@mail.test")
    assert await pending_ids(app, conversation_id) == [call_id]

    await email.fill("grace@example.org")
    await row.get_by_test_id("form-submit").click()
    await finished(page, row)
    await expect(row.get_by_test_id("field-error")).to_have_count(0)
    await expect(row.get_by_test_id("decision")).to_have_text("Answered: Email: grace@example.org")
    reply = messages(page, "assistant").last
    await expect(reply).to_contain_text("Thanks! Here is what you told me:")
    await expect(reply.locator("li")).to_have_text(["Email: grace@example.org"])
    assert [json.loads(p["message"]) for p in posts] == [
        {"email": "grace@mail.test"},
        {"email": "grace@example.org"},
    ]


# --------------------------------------------------------------------------------------------
# ask.choice and ask.confirm
# --------------------------------------------------------------------------------------------


async def test_scout_choice_then_confirm_yes_and_no(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    await open_app(page)
    await page.get_by_test_id("new-chat").click()
    await (
        employee_option(page, "scout")
        .get_by_test_id("starter-prompt")
        .filter(has_text="Ask me to choose between tea, coffee and juice")
        .click()
    )
    conversation_id = await opened(page, "scout")
    posts = decision_posts(page)

    # ask.choice, single: one click answers.
    choice, choice_id = await paused_call(page, "Ask to choose")
    await expect(choice.locator(".card-question")).to_have_text("Which one do you choose?")
    options = choice.get_by_test_id("choice-option")
    await expect(options).to_have_text(["tea", "coffee", "juice"])
    await expect(choice.get_by_test_id("choice-submit")).to_have_count(0)
    await options.filter(has_text="coffee").click()

    await finished(page, choice)
    await expect(choice.get_by_test_id("decision")).to_have_text("Answered: coffee")
    chosen = choice.locator('[data-testid="choice-option"][data-chosen="true"]')
    await expect(chosen).to_have_text(["coffee"])
    await expect(chosen).to_have_attribute("aria-pressed", "true")
    for index in range(3):
        await expect(options.nth(index)).to_be_disabled()
    await expect(messages(page, "assistant").last).to_contain_text("You picked: coffee.")
    await page.screenshot(path=tmp_path / "choice.png", full_page=True)
    assert posts == [{"type": "respond", "message": "coffee"}]

    # ask.confirm: Yes.
    await send(page, "Ask me to confirm the booking for Friday")
    confirm, confirm_id = await paused_call(page, "Ask to confirm")
    await expect(confirm.locator(".card-question")).to_have_text(
        "Do you confirm the booking for Friday?"
    )
    await confirm.get_by_test_id("confirm-yes").click()
    await finished(page, confirm)
    await expect(confirm.get_by_test_id("decision")).to_have_text("Answered: yes")
    await expect(confirm.get_by_test_id("confirm-yes")).to_have_count(0)
    await expect(confirm.get_by_test_id("confirm-no")).to_have_count(0)
    await expect(messages(page, "assistant").last).to_contain_text(
        "Confirmed: the booking for Friday."
    )
    await page.screenshot(path=tmp_path / "confirm.png", full_page=True)

    # ask.confirm: No.
    await send(page, "ask me to confirm the refund")
    refused, refused_id = await paused_call(page, "Ask to confirm")
    await refused.get_by_test_id("confirm-no").click()
    await finished(page, refused)
    await expect(refused.get_by_test_id("decision")).to_have_text("Answered: no")
    await expect(messages(page, "assistant").last).to_contain_text(
        "Not confirmed, nothing was done."
    )

    assert posts[1:] == [
        {"type": "respond", "message": "yes"},
        {"type": "respond", "message": "no"},
    ]
    for call_id, message in ((choice_id, "coffee"), (confirm_id, "yes"), (refused_id, "no")):
        stored = await stored_call(app, conversation_id, call_id)
        assert stored["status"] == "succeeded"
        assert stored["decision"]["type"] == "respond"
        assert stored["decision"]["message"] == message

    # After a reload every card is closed and shows its answer.
    await page.reload()
    await expect(conversation(page)).to_have_attribute("data-conversation-id", conversation_id)
    await expect(tool_call(page, choice_id).get_by_test_id("decision")).to_have_text(
        "Answered: coffee"
    )
    await expect(
        tool_call(page, choice_id).locator('[data-testid="choice-option"][data-chosen="true"]')
    ).to_have_text(["coffee"])
    await expect(tool_call(page, confirm_id).get_by_test_id("decision")).to_have_text(
        "Answered: yes"
    )
    await expect(tool_call(page, refused_id).get_by_test_id("decision")).to_have_text(
        "Answered: no"
    )
    await expect(page.get_by_test_id("confirm-yes")).to_have_count(0)
    await expect(page.locator('[data-testid="choice-option"]:enabled')).to_have_count(0)
