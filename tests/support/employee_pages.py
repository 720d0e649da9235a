"""Browser-test helpers for AI employees and the ``ask`` skill's cards: the built-in employees
as the picker shows them, and waits on the picker, the cards and the decisions sent."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from playwright.async_api import Locator, Page, Request, expect

from support.live import LiveServer
from support.pages import conversation, paused_on_one_call


@dataclass(frozen=True)
class Shown:
    """What the picker shows of a built-in employee (server/interlock/employees/builtin.yaml)."""

    slug: str
    avatar: str
    name: str
    title: str
    about: str
    starters: list[str]


ADA = Shown(
    slug="assistant",
    avatar="🧭",
    name="Ada",
    title="General assistant",
    about="Keeps your notes and helps you decide. Asks before changing anything.",
    starters=[
        "Give me ideas for a name for my cat",
        "Add a note buy milk",
        "What notes do I have?",
    ],
)
SCOUT = Shown(
    slug="scout",
    avatar="🔭",
    name="Scout",
    title="Intake interviewer",
    about=(
        "Asks you structured questions (forms, choices, confirmations) and never touches "
        "your notes."
    ),
    starters=[
        "Ask me for my details",
        "Ask me to choose between tea, coffee and juice",
        "Ask me to confirm the booking for Friday",
    ],
)
FORM_FIELDS = ["name", "email", "age", "newsletter", "plan"]
"""The fields of the offline model's ``ask.form`` ("Your details"), in order."""


def employee_option(page: Page, slug: str) -> Locator:
    """The employee's card in the picker."""
    return page.locator(f'[data-testid="employee-option"][data-slug="{slug}"]')


async def opened(page: Page, slug: str) -> str:
    """Wait for a conversation with ``slug`` to be open; return its id."""
    view = conversation(page)
    await expect(view).to_have_attribute("data-conversation-id", re.compile(r".+"))
    await expect(page.get_by_test_id("conversation-employee")).to_have_attribute("data-slug", slug)
    conversation_id = await view.get_attribute("data-conversation-id")
    assert conversation_id
    return conversation_id


async def expect_avatar(where: Locator, employee: Shown) -> None:
    """The avatar is the emoji, or the initials where this browser has no font to draw it."""
    avatar = where.locator(".avatar")
    await expect(avatar).to_have_attribute("data-avatar", employee.avatar)
    initials = "".join(word[0].upper() for word in employee.name.split()[:2])
    await expect(avatar).to_have_text(re.compile(f"^({re.escape(employee.avatar)}|{initials})$"))


def posted_url_is_for(request: Request, conversation_id: str) -> bool:
    """Whether ``request`` posts a message to ``conversation_id``."""
    return request.url.endswith(f"/api/conversations/{conversation_id}/messages")


async def paused_call(page: Page, title: str) -> tuple[Locator, str]:
    """Wait for the run to pause on one call titled ``title``; return its row and id."""
    row, call_id = await paused_on_one_call(page)
    await expect(row.locator(".tool-title")).to_have_text(title)
    return row, call_id


async def pending_ids(app: LiveServer, conversation_id: str) -> list[str]:
    """The ids of the calls of ``conversation_id`` waiting for a decision (from the API)."""
    response = await app.client.get(f"/api/conversations/{conversation_id}/pending")
    assert response.status_code == 200, response.text
    return [c["id"] for c in response.json()]


def decision_posts(page: Page) -> list[dict[str, Any]]:
    """Bodies of the decision POSTs the page sends from now on."""
    bodies: list[dict[str, Any]] = []

    def record(request: Request) -> None:
        if request.method == "POST" and request.url.endswith("/decision"):
            bodies.append(json.loads(request.post_data or "null"))

    page.on("request", record)
    return bodies


def form_field(row: Locator, call_id: str, name: str) -> Locator:
    """One input of an ``ask.form`` card (rjsf ids are ``form_<call id>_<field>``)."""
    return row.locator(f"#form_{call_id}_{name}")


async def expect_form_closed(row: Locator, call_id: str) -> None:
    """An answered form offers no input and no submit any more."""
    await expect(row.get_by_test_id("form-submit")).to_have_count(0)
    await expect(row.locator("form")).to_have_count(0)
    for name in FORM_FIELDS:
        await expect(form_field(row, call_id, name)).to_have_count(0)
