"""An approver in Chromium: a call waiting in someone else's conversation, in the Approvals view.

Users: ``owner`` asks Ada (the ``assistant`` employee) to add a note; the call needs two
approvals; the owner gives the first over the API; ``ana``, an approver of Ada, opens the
Approvals view, sees who asked, the message that proposed the call, "1 of 2 approvals: owner"
and the time left, and approves; the note is added once. Every wait is a bounded ``expect``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import Page, expect

from interlock.storage.users import create_user
from support.live import LiveServer
from support.pages import notes
from support.sse import collect, terminals

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def _call_needing_two(
    app: LiveServer,
    owner: str,
    approver: str,
    *,
    require_approver: bool = False,
    others: tuple[str, ...] = (),
) -> tuple[str, str, str, dict[str, Any]]:
    """``owner``'s "add a note buy milk" paused on a call that needs two approvals (and, with
    ``require_approver``, an approver's: its owner may only reject it), with ``approver`` an
    approver of Ada (and ``others``): the owner's token, the approver's, the conversation's id
    and the call."""
    _owner, owner_token = create_user(app.services.db, owner)
    _approver, approver_token = create_user(app.services.db, approver)
    for other in others:
        create_user(app.services.db, other)
    rule: dict[str, Any] = {"approvals_required": 2}
    if require_approver:
        rule["require_approver"] = True
    app.services.employees.update(
        "assistant", {"approvers": [approver, *others], "tool_approvals": {"notes.add": rule}}
    )
    headers = {"Authorization": f"Bearer {owner_token}"}
    created = await app.client.post("/api/conversations", json={}, headers=headers)
    conversation_id = created.json()["id"]
    said = await app.client.post(
        f"/api/conversations/{conversation_id}/messages",
        json={"content": "add a note buy milk"},
        headers=headers,
    )
    assert said.status_code == 202, said.text
    await app.idle()
    (call,) = (
        await app.client.get(f"/api/conversations/{conversation_id}/pending", headers=headers)
    ).json()
    return owner_token, approver_token, conversation_id, call


async def test_an_approver_gives_the_second_approval_from_the_approvals_view(
    app: LiveServer, page: Page, tmp_path: Path
) -> None:
    owner_token, ana_token, conversation_id, call = await _call_needing_two(app, "owner", "ana")
    owner = {"Authorization": f"Bearer {owner_token}"}
    first = await app.client.post(
        f"/api/tool-calls/{call['id']}/decision", json={"type": "approve"}, headers=owner
    )
    assert first.status_code == 200, first.text
    assert notes(app) == []

    await page.add_init_script(f"localStorage.setItem('interlock.token', {ana_token!r})")
    await page.goto("/#/approvals")
    item = page.locator(f'[data-testid="approval-item"][data-tool-call-id="{call["id"]}"]')
    await expect(item).to_have_attribute("data-role", "approver")
    await expect(item.get_by_test_id("approval-requested-by")).to_have_text("owner")
    await expect(item.get_by_test_id("approval-message")).to_be_visible()
    await expect(item.get_by_test_id("approval-progress")).to_contain_text(
        "1 of 2 approvals: owner"
    )
    await expect(item.get_by_test_id("expiry")).to_contain_text("Decide within")
    # The call waits for ana, though not in a conversation of hers: the badge and the tab
    # title count it.
    await expect(page.get_by_test_id("approvals-count")).to_have_text("1")
    await expect(page).to_have_title("(1) Approvals · Interlock")
    await page.screenshot(path=tmp_path / "approver.png", full_page=True)

    await item.get_by_test_id("approve").click()
    await expect(item).to_have_count(0)
    await expect(page.get_by_test_id("approvals-count")).to_have_count(0)
    await expect(page).to_have_title("Approvals · Interlock")
    async with httpx.AsyncClient(base_url=app.url, headers=owner, timeout=15) as as_owner:
        log = await collect(as_owner, conversation_id, until=terminals(2))
    await app.idle()
    assert log.types.count("run.completed") == 1, log.types
    assert [text for _id, text in notes(app)] == ["buy milk"]


async def test_the_owner_of_a_call_needing_an_approver_is_not_asked_to_decide_it(
    app: LiveServer, page: Page
) -> None:
    """Tryout: the owner saw "Waiting for you", the banner "... is waiting for your decision"
    and "1 decision" in the sidebar and tab title, with only Reject to press."""
    owner_token, _ann, conversation_id, call = await _call_needing_two(
        app, "ben", "cara", require_approver=True, others=("dan",)
    )
    await page.add_init_script(f"localStorage.setItem('interlock.token', {owner_token!r})")
    await page.goto(f"/#/c/{conversation_id}")
    row = page.locator(f'[data-testid="tool-call"][data-tool-call-id="{call["id"]}"]')

    await expect(row.get_by_test_id("tool-status")).to_have_text(
        "Waiting for the approvers — 0 of 2 approvals"
    )
    await expect(row.get_by_test_id("reject")).to_be_visible()
    await expect(row.get_by_test_id("approve")).to_have_count(0)
    await expect(page.get_by_test_id("waiting-banner")).to_have_count(0)
    await expect(page.locator('[data-waiting="0"]')).to_have_count(1)
    await expect(page).not_to_have_title(re.compile(r"^\(\d+\)"))


async def test_a_saved_token_the_server_refuses_is_said_to_be_refused(
    app: LiveServer, page: Page
) -> None:
    create_user(app.services.db, "owner")  # a user exists: the API wants a token
    await page.add_init_script("localStorage.setItem('interlock.token', 'not-a-token')")
    await page.goto("/")
    await expect(page.get_by_test_id("token-input")).to_be_visible()
    await expect(page.get_by_test_id("token-refused")).to_contain_text("was not accepted")
    # Nothing that needs sign-in shows behind the dialog: no sidebar, no welcome text.
    await expect(page.locator("#sidebar")).to_have_count(0)
    await expect(page.get_by_text("AI employees that ask")).to_have_count(0)
    await page.get_by_test_id("token-clear").click()
    await expect(page.get_by_test_id("token-refused")).to_have_count(0)


async def test_the_sign_in_page_checks_once_and_says_a_typed_token_was_refused(
    app: LiveServer, page: Page
) -> None:
    """Found in a tryout: 10 refused requests in the console before the dialog, and a token
    just typed was called "the saved token"."""
    create_user(app.services.db, "owner")  # a user exists: the API wants a token
    refused: list[str] = []
    page.on("response", lambda r: refused.append(r.url) if r.status == 401 else None)
    await page.goto("/")
    await expect(page.get_by_test_id("token-input")).to_be_visible()
    await expect(page.get_by_test_id("token-refused")).to_have_count(0)
    assert [url.split("/api/", 1)[1] for url in refused] == ["me"]

    await page.get_by_test_id("token-input").fill("mistyped")
    await page.get_by_test_id("token-save").click()
    refusal = page.get_by_test_id("token-refused")
    await expect(refusal).to_contain_text("The token you entered was not accepted")
    assert [url.split("/api/", 1)[1] for url in refused] == ["me", "me"]


async def test_an_approver_reads_an_override_in_the_args_as_the_cards_sentence_shows_it(
    app: LiveServer, page: Page
) -> None:
    """Found in QA: the sentence read “from [U+202E]Hal conv” but the field list showed
    "from vnoc laH": the approver approved a value that read otherwise. Both read the same
    now, and the note is stored as it was written."""
    _owner, owner_token = create_user(app.services.db, "owner")
    _ana, ana_token = create_user(app.services.db, "ana")
    app.services.employees.update(
        "assistant",
        {"approvers": ["ana"], "tool_approvals": {"notes.add": {"approvals_required": 2}}},
    )
    owner = {"Authorization": f"Bearer {owner_token}"}
    created = await app.client.post("/api/conversations", json={}, headers=owner)
    conversation_id = created.json()["id"]
    said = await app.client.post(
        f"/api/conversations/{conversation_id}/messages",
        json={"content": "add a note from \u202eHal conv"},
        headers=owner,
    )
    assert said.status_code == 202, said.text
    await app.idle()
    (call,) = (
        await app.client.get(f"/api/conversations/{conversation_id}/pending", headers=owner)
    ).json()
    assert call["proposed_args"] == {"text": "from \u202eHal conv"}

    await page.add_init_script(f"localStorage.setItem('interlock.token', {ana_token!r})")
    await page.goto("/#/approvals")
    item = page.locator(f'[data-testid="approval-item"][data-tool-call-id="{call["id"]}"]')
    await expect(item).to_have_attribute("data-role", "approver")
    await expect(item.get_by_test_id("approval-summary")).to_have_text(
        "Add a note: “from [U+202E]Hal conv”"
    )
    field = item.locator('[data-testid="arg-field"][data-key="text"] dd')
    await expect(field).to_have_text("from [U+202E]Hal conv")
    assert "\u202e" not in await item.inner_text()

    await item.get_by_test_id("approve").click()
    await expect(item.get_by_test_id("approved-by-me")).to_be_visible()
    assert notes(app) == []


async def test_an_approvers_refused_decision_says_why_after_the_list_re_reads(
    app: LiveServer, page: Page
) -> None:
    """Found in a tryout: ann rejected the call over the API while bob's Approvals view still
    listed it; bob's Approve met a 409 and the item vanished, leaving only "Nothing is waiting
    for you." Bob now reads that ann already rejected it, and it stays after the re-read."""
    ann_token, bob_token, _conversation_id, call = await _call_needing_two(app, "ann", "bob")
    ann = {"Authorization": f"Bearer {ann_token}"}

    await page.add_init_script(f"localStorage.setItem('interlock.token', {bob_token!r})")
    await page.goto("/#/approvals")
    item = page.locator(f'[data-testid="approval-item"][data-tool-call-id="{call["id"]}"]')
    await expect(item).to_have_attribute("data-role", "approver")
    # Bob's view keeps the list it read (no re-read slips in) until he decides.
    stale = await (
        await page.request.get("/api/approvals", headers={"Authorization": f"Bearer {bob_token}"})
    ).body()
    decided: list[bool] = []

    async def approvals(route) -> None:  # type: ignore[no-untyped-def]
        if decided:
            await route.continue_()
        else:
            await route.fulfill(status=200, body=stale, content_type="application/json")

    async def decision(route) -> None:  # type: ignore[no-untyped-def]
        decided.append(True)
        await route.continue_()

    await page.route("**/api/approvals", approvals)
    await page.route("**/decision", decision)
    rejected = await app.client.post(
        f"/api/tool-calls/{call['id']}/decision", json={"type": "reject"}, headers=ann
    )
    assert rejected.status_code == 200, rejected.text
    await app.idle()

    await item.get_by_test_id("approve").click()
    await expect(item).to_have_count(0)
    await expect(page.get_by_test_id("approvals-empty")).to_be_visible()
    refused = page.get_by_test_id("approval-refused")
    await expect(refused).to_contain_text("Your decision on Add a note for ann was not applied.")
    await expect(refused).to_contain_text("Already decided: ann rejected this call.")
    assert notes(app) == []
