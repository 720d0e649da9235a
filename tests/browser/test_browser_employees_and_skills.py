"""AI employees, slash commands and the admin page, in Chromium.

Each test drives the real app (built ``client-web/dist`` + API + offline model + SQLite, see
``conftest.py``): the employee picker and its starter prompts (Scout's form card answered with
the ``respond`` decision), Ada's ``/notes`` command through the slash menu, and an admin's
per-tool permission switch. Each checks what the page shows and what the server stored. Every
wait is a bounded Playwright ``expect``; no sleeps. One screenshot per flow lands in the
test's ``tmp_path``. The ``ask`` skill's cards: ``test_browser_ask_cards``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from interlock.storage import EmployeeRecord
from support.employee_pages import (
    ADA,
    SCOUT,
    decision_posts,
    employee_option,
    expect_avatar,
    expect_form_closed,
    form_field,
    opened,
    paused_call,
    posted_url_is_for,
)
from support.live import LiveServer
from support.pages import (
    conversation,
    finished,
    messages,
    new_chat,
    notes,
    open_app,
    start_chat,
    stored_call,
    tool_call,
)

pytestmark = pytest.mark.asyncio(loop_scope="session")


# --------------------------------------------------------------------------------------------
# Picker + starter prompt → ask.form
# --------------------------------------------------------------------------------------------


async def test_scout_starter_prompt_asks_a_form_and_the_answer_survives_a_reload(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    await open_app(page)
    await page.get_by_test_id("new-chat").click()
    picker = page.get_by_test_id("employee-picker")
    await expect(picker).to_be_visible()
    options = picker.get_by_test_id("employee-option")
    await expect(options).to_have_count(2)
    for index, employee in enumerate([ADA, SCOUT]):
        option = options.nth(index)
        await expect(option).to_have_attribute("data-slug", employee.slug)
        choose = option.get_by_test_id("employee-choose")
        await expect_avatar(choose, employee)
        await expect(choose.locator(".employee-name")).to_have_text(employee.name)
        await expect(choose).to_contain_text(employee.title)
        await expect(option.locator(".employee-about")).to_have_text(employee.about)
        await expect(choose).to_have_accessible_description(employee.about)
        await expect(option.get_by_test_id("starter-prompt")).to_have_text(employee.starters)
    await page.screenshot(path=tmp_path / "picker.png", full_page=True)

    await (
        employee_option(page, "scout")
        .get_by_test_id("starter-prompt")
        .filter(has_text="Ask me for my details")
        .click()
    )

    conversation_id = await opened(page, "scout")
    header = page.get_by_test_id("conversation-employee")
    await expect(header.locator(".employee-name")).to_have_text("Scout")
    await expect(header).to_contain_text("Intake interviewer")
    await expect_avatar(header, SCOUT)
    await expect(messages(page, "user")).to_have_text(["Ask me for my details"])
    await expect(page.get_by_test_id("employee-greeting")).to_have_count(0)

    row, call_id = await paused_call(page, "Ask to fill in a form")
    card = row.locator("section.form-card")
    await expect(card.locator("h4")).to_have_text("Your details")
    await expect(form_field(row, call_id, "name")).to_have_attribute("required", "")
    await expect(form_field(row, call_id, "email")).to_have_attribute("required", "")
    await expect(row.get_by_test_id("field-error")).to_have_count(0)
    posts = decision_posts(page)

    await form_field(row, call_id, "name").fill("Grace Hopper")
    await form_field(row, call_id, "email").fill("grace@example.com")
    await form_field(row, call_id, "age").fill("85")
    await form_field(row, call_id, "newsletter").check()
    await form_field(row, call_id, "plan").select_option(label="Pro")  # worded, not "pro"
    await row.get_by_test_id("form-submit").click()

    await finished(page, row)
    answer = "Name: Grace Hopper · Email: grace@example.com · Age: 85 · Newsletter: Yes · Plan: Pro"
    await expect(row.get_by_test_id("decision")).to_have_text(f"Answered: {answer}")
    await expect(row.get_by_test_id("decision")).to_have_attribute("data-decision-type", "respond")
    await expect_form_closed(row, call_id)
    reply = messages(page, "assistant").last
    await expect(reply).to_contain_text("Thanks, Grace Hopper! Here is what you told me:")
    await expect(reply.locator("li")).to_have_text(
        [
            "Name: Grace Hopper",
            "Email: grace@example.com",
            "Age: 85",
            "Newsletter: Yes",
            "Plan: Pro",  # as the form listed it, and as the card says it above
        ]
    )
    await page.screenshot(path=tmp_path / "form-answered.png", full_page=True)

    values = {
        "name": "Grace Hopper",
        "email": "grace@example.com",
        "age": 85,
        "newsletter": True,
        "plan": "pro",
    }
    assert len(posts) == 1, posts
    assert posts[0]["type"] == "respond"
    assert json.loads(posts[0]["message"]) == values
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["name"] == "ask.form"
    assert stored["status"] == "succeeded"
    assert stored["decision"]["type"] == "respond"
    assert json.loads(stored["decision"]["message"]) == values
    detail = (await app.client.get(f"/api/conversations/{conversation_id}")).json()
    assert detail["employee"] == "scout"

    # After a reload the card is read-only and shows the answer.
    await page.reload()
    await expect(conversation(page)).to_have_attribute("data-conversation-id", conversation_id)
    await expect(page.get_by_test_id("conversation-employee")).to_have_attribute(
        "data-slug", "scout"
    )
    row = tool_call(page, call_id)
    await expect(row).to_have_attribute("data-status", "succeeded")
    await expect(row.locator("section.form-card h4")).to_have_text("Your details")
    await expect(row.get_by_test_id("decision")).to_have_text(f"Answered: {answer}")
    await expect_form_closed(row, call_id)
    await expect(messages(page, "assistant").last).to_contain_text("Thanks, Grace Hopper!")
    await expect(page.get_by_test_id("starter-prompt")).to_have_count(0)


# --------------------------------------------------------------------------------------------
# Slash command
# --------------------------------------------------------------------------------------------


async def test_slash_notes_picked_with_the_keyboard_asks_approval_and_stores_the_note(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    await open_app(page)
    await new_chat(page, "assistant")
    await expect(page.get_by_test_id("employee-greeting")).to_contain_text(
        "Hi, I'm Ada. I ask before I act."
    )
    listed = (await app.client.get("/api/employees/assistant/commands")).json()
    assert {"skill": "notes", "command": "notes"} in [
        {"skill": c["skill"], "command": c["command"]} for c in listed
    ]

    box = page.get_by_test_id("composer-input")
    await box.focus()
    await page.keyboard.type("/")
    menu = page.get_by_test_id("slash-menu")
    await expect(menu).to_be_visible()
    await expect(menu.get_by_test_id("slash-item")).to_have_count(len(listed))
    item = menu.locator('[data-testid="slash-item"][data-command="notes"][data-skill="notes"]')
    await expect(item).to_contain_text("/notes")
    await expect(item).to_contain_text("Add a note")
    await expect(item).to_contain_text("Save the rest of the line as a note")
    await page.keyboard.type("no")  # filters the menu to the matching commands
    await expect(item).to_have_attribute("aria-selected", "true")
    await expect(box).to_have_attribute("aria-activedescendant", re.compile(r".+"))
    await page.screenshot(path=tmp_path / "slash-menu.png", full_page=True)

    await page.keyboard.press("Enter")  # picks the active command; does not send
    await expect(box).to_have_value("/notes ")
    await expect(menu).to_have_count(0)
    await expect(messages(page, "user")).to_have_count(0)
    await page.keyboard.type("buy milk")
    await expect(box).to_have_value("/notes buy milk")
    await expect(menu).to_have_count(0)

    async with page.expect_request(
        lambda r: r.method == "POST" and r.url.endswith("/messages")
    ) as posted:
        await page.keyboard.press("Enter")
    conversation_id = await opened(page, "assistant")
    assert posted_url_is_for(await posted.value, conversation_id)
    body = json.loads((await posted.value).post_data or "null")
    assert body == {
        "content": "/notes buy milk",
        "command": {"skill": "notes", "command": "notes"},
    }
    await expect(box).to_have_value("")
    await expect(messages(page, "user").last).to_have_text("/notes buy milk")

    row, call_id = await paused_call(page, "Add a note")
    await expect(row.locator(".card")).to_contain_text("buy milk")
    assert notes(app) == []
    await row.get_by_test_id("approve").click()

    await finished(page, row)
    await expect(row.get_by_test_id("decision")).to_have_text("Approved")
    await expect(row.get_by_test_id("approve")).to_have_count(0)
    [(note_id, text)] = notes(app)
    assert text == "buy milk"
    await expect(messages(page, "assistant").last).to_contain_text(
        f"I added note #{note_id}: “buy milk”."
    )
    await page.screenshot(path=tmp_path / "slash-done.png", full_page=True)

    stored = await stored_call(app, conversation_id, call_id)
    assert stored["name"] == "notes.add"
    assert stored["proposed_args"] == {"text": "buy milk"}
    assert stored["executed_args"] == {"text": "buy milk"}
    assert stored["decision"]["type"] == "approve"


async def test_scout_has_no_notes_command_and_a_typed_one_is_refused(
    app: LiveServer, page: Page
) -> None:
    await open_app(page)
    await new_chat(page, "scout")
    listed = (await app.client.get("/api/employees/scout/commands")).json()
    assert "notes" not in [c["command"] for c in listed]

    box = page.get_by_test_id("composer-input")
    await box.fill("/no")
    await expect(page.locator('[data-testid="slash-item"][data-command="notes"]')).to_have_count(0)
    await box.fill("/notes buy milk")
    await page.get_by_test_id("send").click()

    error = page.get_by_test_id("composer-error")
    # The command exists (notes' /notes) but Scout may not load that skill: the composer
    # knows Scout's commands and says so without sending, as the server words a command it
    # does not have (tests/api/test_slash_commands_refused.py).
    await expect(error).to_have_attribute("data-code", "slash_command_unavailable")
    await expect(error).to_have_text(
        "Scout has no command /notes; write your request as a message instead."
    )
    await expect(box).to_have_value("/notes buy milk")  # kept, so it can be fixed
    await expect(messages(page, "user")).to_have_count(0)
    assert notes(app) == []
    # A word that only looks like a command (fullwidth letters) is one too: refused before
    # sending, as the server refuses it (it used to go to the model as text).
    await box.fill("/\uff4e\uff4f\uff54\uff45\uff53 buy milk")
    await page.get_by_test_id("send").click()
    await expect(error).to_have_attribute("data-code", "slash_command_unknown")
    await expect(error).to_have_text(
        "Scout has no command /notes; write your request as a message instead."
    )
    await expect(messages(page, "user")).to_have_count(0)
    # The refused first message leaves no conversation behind (a chat is kept from its
    # first message on).
    assert (await app.client.get("/api/conversations")).json() == []


# --------------------------------------------------------------------------------------------
# Admin: per-tool permission
# --------------------------------------------------------------------------------------------


async def test_admin_allows_notes_add_for_ada_and_a_new_chat_adds_without_a_card(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    await open_app(page)
    await page.get_by_test_id("admin-link").click()
    admin = page.get_by_test_id("admin-page")
    await expect(admin).to_be_visible()
    await expect(page).to_have_url(re.compile(r"#/admin$"))
    skills = admin.get_by_test_id("skills-list")
    for name in ("ask", "notes", "suggestions"):
        row = skills.locator(f'[data-testid="skill-row"][data-skill="{name}"]')
        await expect(row).to_have_attribute("data-status", "loaded")
    await expect(skills.get_by_test_id("skill-error")).to_have_count(0)

    await admin.locator('[data-testid="admin-employee"][data-slug="assistant"]').click()
    editor = admin.get_by_test_id("employee-form")
    await expect(editor).to_have_attribute("data-slug", "assistant")
    switch = editor.locator('[data-testid="tool-permission"][data-tool="notes.add"]')
    await expect(switch).to_have_attribute("data-value", "default")
    await expect(switch.locator('label[data-value="default"]')).to_have_text("Default (ASK)")
    save = editor.get_by_test_id("employee-save")
    await expect(save).to_be_disabled()

    await switch.locator('label[data-value="ALLOW"]').click()
    await expect(switch).to_have_attribute("data-value", "ALLOW")
    await expect(switch.locator('input[value="ALLOW"]')).to_be_checked()
    async with page.expect_request(
        lambda r: r.method == "PATCH" and r.url.endswith("/api/employees/assistant")
    ) as patched:
        await save.click()
    assert json.loads((await patched.value).post_data or "null") == {
        "tool_overrides": {"notes.add": "ALLOW"}
    }
    await expect(editor.get_by_test_id("admin-saved")).to_have_text("Saved.")
    await expect(editor.get_by_test_id("admin-error")).to_have_count(0)
    await expect(save).to_be_disabled()
    await expect(switch).to_have_attribute("data-value", "ALLOW")
    await page.screenshot(path=tmp_path / "admin-saved.png", full_page=True)

    # Stored: an override row of the built-in, and the API reports it.
    with app.services.db.session() as session:
        record = session.get(EmployeeRecord, "assistant")
        assert record is not None
        assert record.builtin is True
        assert record.tool_overrides == {"notes.add": "ALLOW"}
    ada = (await app.client.get("/api/employees/assistant")).json()
    assert ada["tool_overrides"] == {"notes.add": "ALLOW"}
    scout = (await app.client.get("/api/employees/scout")).json()
    assert scout["tool_overrides"]["notes.add"] == "DENY"

    # A reload of the admin page shows the saved switch.
    await page.reload()
    await admin.locator('[data-testid="admin-employee"][data-slug="assistant"]').click()
    await expect(switch).to_have_attribute("data-value", "ALLOW")

    # A new chat with Ada: the note is added at once, without a card.
    conversation_id = await start_chat(page, "add a note quick one", "assistant")
    row = page.get_by_test_id("tool-call")
    await expect(row).to_have_count(1)
    await finished(page, row)
    await expect(row.locator(".tool-title")).to_have_text("Add a note")
    await expect(row.locator(".tool-args")).to_contain_text("quick one")
    await expect(row.locator(".card")).to_have_count(0)
    await expect(row.get_by_test_id("approve")).to_have_count(0)
    [(note_id, text)] = notes(app)
    assert text == "quick one"
    await expect(messages(page, "assistant").last).to_contain_text(
        f"I added note #{note_id}: “quick one”."
    )
    await page.screenshot(path=tmp_path / "admin-allowed-run.png", full_page=True)

    call_id = await row.get_attribute("data-tool-call-id")
    assert call_id
    stored = await stored_call(app, conversation_id, call_id)
    assert stored["status"] == "succeeded"
    assert stored["decision"] is None
    assert stored["executed_args"] == {"text": "quick one"}
