"""AI employees over HTTP: everyone reads them, only admins change them.

Built-ins (``assistant``/Ada and ``scout``/Scout) can be overridden, reset and disabled, never
deleted; admin-made employees can be deleted. Members never see the system prompt. A disabled
employee is hidden from members, cannot start conversations, and its conversations refuse
new messages. ``/commands`` lists the slash commands the employee may use.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from sqlmodel import select

from interlock.settings import Settings
from interlock.storage import Database, Message, Run
from interlock.storage.groups import add_member, remove_member
from interlock.storage.users import create_user
from support.live import LiveServer, live_server

EMPLOYEE_FIELDS = {
    "slug",
    "name",
    "avatar",
    "title",
    "about",
    "greeting",
    "starter_prompts",
    "builtin",
    "disabled",
    "model",
    "pinned_skills",
    "available_skills",
    "tool_overrides",
    "system_prompt",
    "approvers",
    "approval_timeout_s",
    "tool_approvals",
}


@dataclass
class Team:
    """A live server with an admin client (``server.client``) and a member client."""

    server: LiveServer
    member: httpx.AsyncClient

    @property
    def admin(self) -> httpx.AsyncClient:
        return self.server.client


@pytest.fixture
async def team(api_settings: Settings) -> AsyncIterator[Team]:
    db = Database(api_settings.database_url)
    _admin, admin_token = create_user(db, "boss", "admin")
    _member, member_token = create_user(db, "mia", "member")
    db.dispose()
    admin = {"Authorization": f"Bearer {admin_token}"}
    member = {"Authorization": f"Bearer {member_token}"}
    async with live_server(api_settings, headers=admin) as server:
        async with httpx.AsyncClient(base_url=server.url, headers=member, timeout=15) as client:
            yield Team(server=server, member=client)


def _error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    error = dict(response.json()["error"])
    assert error["code"] == code, error
    return error


def _new_employee(slug: str = "chef", **fields: Any) -> dict[str, Any]:
    return {
        "slug": slug,
        "name": "Chef",
        "title": "Cook",
        "about": "Plans meals.",
        "system_prompt": "You are Chef.",
        "pinned_skills": ["suggestions"],
        "available_skills": ["ask"],
        "tool_overrides": {"notes.add": "DENY"},
        "greeting": "Hungry?",
        "starter_prompts": ["Plan dinner"],
        **fields,
    }


async def test_everyone_sees_the_two_builtins_and_only_admins_see_the_prompt(team: Team) -> None:
    for client, admin in ((team.admin, True), (team.member, False)):
        response = await client.get("/api/employees")
        assert response.status_code == 200, response.text
        employees = response.json()
        assert [(e["slug"], e["name"]) for e in employees] == [
            ("assistant", "Ada"),
            ("scout", "Scout"),
        ]
        for employee in employees:
            assert set(employee) == EMPLOYEE_FIELDS
            assert employee["builtin"] is True and employee["disabled"] is False
            assert employee["title"] and employee["about"] and employee["greeting"]
            assert employee["starter_prompts"]
            if admin:
                assert employee["system_prompt"].startswith(f"You are {employee['name']}")
            else:
                assert employee["system_prompt"] == ""
        ada, scout = employees
        assert ada["pinned_skills"] == ["notes", "suggestions"]
        assert ada["available_skills"] == ["*"]
        assert scout["pinned_skills"] == ["ask"]
        assert scout["tool_overrides"]["notes.add"] == "DENY"

        one = await client.get("/api/employees/scout")
        assert one.status_code == 200 and one.json()["name"] == "Scout"
        assert (one.json()["system_prompt"] != "") is admin

    _error(await team.member.get("/api/employees/nobody"), 404, "not_found")


async def test_members_may_not_change_employees(team: Team) -> None:
    attempts = [
        await team.member.post("/api/employees", json=_new_employee()),
        await team.member.patch("/api/employees/assistant", json={"name": "Eve"}),
        await team.member.delete("/api/employees/assistant"),
        await team.member.post("/api/employees/assistant/reset"),
    ]
    for response in attempts:
        _error(response, 403, "permission_denied")
    ada = (await team.admin.get("/api/employees/assistant")).json()
    assert ada["name"] == "Ada"
    assert [e["slug"] for e in (await team.admin.get("/api/employees")).json()] == [
        "assistant",
        "scout",
    ]


async def test_admin_creates_an_employee_and_slugs_are_unique(team: Team) -> None:
    response = await team.admin.post("/api/employees", json=_new_employee())
    assert response.status_code == 201, response.text
    chef = response.json()
    assert chef["slug"] == "chef" and chef["builtin"] is False and chef["disabled"] is False
    assert chef["system_prompt"] == "You are Chef."
    assert chef["tool_overrides"] == {"notes.add": "DENY"}
    assert chef["model"] is None

    listed = (await team.member.get("/api/employees")).json()
    assert [e["slug"] for e in listed] == ["assistant", "scout", "chef"]
    assert listed[2]["system_prompt"] == ""

    again = await team.admin.post("/api/employees", json=_new_employee(name="Other chef"))
    _error(again, 409, "employee_exists")
    for builtin in ("assistant", "scout"):
        taken = await team.admin.post("/api/employees", json=_new_employee(builtin))
        _error(taken, 409, "employee_exists")
    assert (await team.admin.get("/api/employees/assistant")).json()["name"] == "Ada"
    assert (await team.admin.get("/api/employees/chef")).json()["name"] == "Chef"


async def test_unknown_skills_and_tools_are_refused_with_their_names(team: Team) -> None:
    bad = _new_employee(
        "ghost",
        pinned_skills=["notes", "astrology"],
        available_skills=["*", "tarot"],
        tool_overrides={"notes.add": "ASK", "crystal.ball": "DENY"},
    )
    error = _error(await team.admin.post("/api/employees", json=bad), 422, "unknown_reference")
    assert error["details"] == {
        "skills": ["astrology", "tarot"],
        "tools": ["crystal.ball"],
        "users": [],
        "groups": [],
    }
    assert "astrology" in error["message"] and "crystal.ball" in error["message"]
    _error(await team.admin.get("/api/employees/ghost"), 404, "not_found")

    patch = await team.admin.patch(
        "/api/employees/assistant", json={"tool_overrides": {"nope.tool": "ALLOW"}}
    )
    assert _error(patch, 422, "unknown_reference")["details"]["tools"] == ["nope.tool"]
    patch = await team.admin.patch("/api/employees/assistant", json={"pinned_skills": ["zzz"]})
    assert _error(patch, 422, "unknown_reference")["details"]["skills"] == ["zzz"]
    assert (await team.admin.get("/api/employees/assistant")).json()["pinned_skills"] == [
        "notes",
        "suggestions",
    ]


async def test_unknown_approvers_are_refused_on_create_and_patch(team: Team) -> None:
    bad = _new_employee("ghost", approvers=["mia", "nobody", "group:nope"])
    error = _error(await team.admin.post("/api/employees", json=bad), 422, "unknown_reference")
    assert error["details"] == {"skills": [], "tools": [], "users": ["nobody"], "groups": ["nope"]}
    assert "nobody" in error["message"] and "create the group first" in error["message"]
    assert "interlock groups add nope USER" in error["message"]
    _error(await team.admin.get("/api/employees/ghost"), 404, "not_found")

    patch = await team.admin.patch("/api/employees/assistant", json={"approvers": ["group:x"]})
    assert _error(patch, 422, "unknown_reference")["details"]["groups"] == ["x"]
    patch = await team.admin.patch("/api/employees/assistant", json={"approvers": ["nobody"]})
    assert _error(patch, 422, "unknown_reference")["details"]["users"] == ["nobody"]
    assert (await team.admin.get("/api/employees/assistant")).json()["approvers"] == []

    # Once the group has a member it may be named; existing users always may.
    db = team.server.services.db
    add_member(db, "nope", "mia")
    patch = await team.admin.patch(
        "/api/employees/assistant", json={"approvers": ["mia", "group:nope"]}
    )
    assert patch.status_code == 200, patch.text
    assert patch.json()["approvers"] == ["mia", "group:nope"]
    # A group that empties later does not block unrelated edits of the employee...
    remove_member(db, "nope", "mia")
    patch = await team.admin.patch("/api/employees/assistant", json={"title": "Helper"})
    assert patch.status_code == 200, patch.text
    patch = await team.admin.patch("/api/employees/assistant", json={"approvers": ["group:nope"]})
    assert patch.status_code == 200, patch.text  # kept, not added: not checked again
    # ... but while it has no member no employee may add it.
    patch = await team.admin.patch("/api/employees/scout", json={"approvers": ["group:nope"]})
    assert _error(patch, 422, "unknown_reference")["details"]["groups"] == ["nope"]


@pytest.mark.parametrize(
    "change",
    [
        {"slug": "Chef!"},
        {"slug": "-chef"},
        {"slug": "c" * 64},
        {"slug": ""},
        {"model": "gpt-4o"},
        {"model": ":gpt"},
        {"model": "openai:"},
        {"tool_overrides": {"notes.add": "MAYBE"}},
        {"name": ""},
        {"name": "   "},
        {"name": "\u202e\u200b\n"},
        {"unknown_field": 1},
    ],
)
async def test_badly_formed_employees_are_refused(team: Team, change: dict[str, Any]) -> None:
    response = await team.admin.post("/api/employees", json=_new_employee(**change))
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "invalid_request"
    assert [e["slug"] for e in (await team.admin.get("/api/employees")).json()] == [
        "assistant",
        "scout",
    ]


async def test_field_errors_read_as_words_for_the_admin_not_pydantic_prefixes(team: Team) -> None:
    cases = [
        ({"model": "no-colon"}, "The model must have the form", "server's model"),
        ({"slug": "Help Desk"}, "The slug may use only lowercase letters", ""),
        # Pydantic's own words reached the Admin page: "String should have at most 200
        # characters", "List should have at most 10 items after validation, not 50".
        ({"avatar": "x" * 300}, "Must have at most 200 characters.", ""),
        ({"starter_prompts": ["p"] * 50}, "Must have at most 10 items; this has 50.", ""),
        ({"disabled": "maybe"}, "Must be true or false.", ""),
        ({"approval_timeout_s": 0}, "approval_timeout_s must be a number of seconds", ""),
        ({"approval_timeout_s": -1}, "approval_timeout_s must be", "(2,592,000 seconds)"),
    ]
    for change, starts, mentions in cases:
        response = await team.admin.post("/api/employees", json=_new_employee(**change))
        errors = _error(response, 422, "invalid_request")["details"]["errors"]
        messages = [e["message"] for e in errors]
        assert any(m.startswith(starts) for m in messages), messages
        assert mentions in " ".join(messages) and "Value error" not in " ".join(messages)
        assert not any(
            m.startswith(("Input should", "String should", "List should")) for m in messages
        )
        assert "INTERLOCK_MODEL" not in " ".join(messages)


async def test_badly_formed_patches_are_refused(team: Team) -> None:
    for body in ({"model": "no-colon"}, {"slug": "other"}, {"builtin": False}, {}):
        response = await team.admin.patch("/api/employees/assistant", json=body)
        assert response.status_code == 422, (body, response.text)
        assert response.json()["error"]["code"] == "invalid_request"
    _error(await team.admin.patch("/api/employees/nobody", json={"name": "X"}), 404, "not_found")
    ada = (await team.admin.get("/api/employees/assistant")).json()
    assert ada["model"] is None and ada["slug"] == "assistant" and ada["builtin"] is True


async def test_names_and_job_titles_are_one_visible_line(team: Team) -> None:
    """Shown as one line (header, sidebar, cards): as conversation titles are."""
    response = await team.admin.post(
        "/api/employees",
        json=_new_employee(name="Chef\n\u202eBot\u200b", title="Head\tcook  \u2066of the day"),
    )
    assert response.status_code == 201, response.text
    assert (response.json()["name"], response.json()["title"]) == (
        "Chef Bot",
        "Head cook of the day",
    )

    blank = await team.admin.patch("/api/employees/chef", json={"name": " \u200b "})
    assert _error(blank, 422, "invalid_request")["details"]["errors"][0]["path"] == ["name"]
    assert (await team.admin.get("/api/employees/chef")).json()["name"] == "Chef Bot"


async def test_blank_starter_prompts_are_left_out_not_shown_as_empty_buttons(team: Team) -> None:
    response = await team.admin.post(
        "/api/employees", json=_new_employee(starter_prompts=["", "Plan dinner", " \u200b\n"])
    )
    assert response.status_code == 201, response.text
    assert response.json()["starter_prompts"] == ["Plan dinner"]

    patched = await team.admin.patch("/api/employees/chef", json={"starter_prompts": ["  "]})
    assert patched.status_code == 200, patched.text
    assert (await team.member.get("/api/employees/chef")).json()["starter_prompts"] == []


async def test_a_builtin_can_be_overridden_and_reset(team: Team) -> None:
    shipped = (await team.admin.get("/api/employees/assistant")).json()

    response = await team.admin.patch(
        "/api/employees/assistant",
        json={"name": "Ada Lovelace", "tool_overrides": {"notes.add": "ALLOW"}},
    )
    assert response.status_code == 200, response.text
    assert response.json()["name"] == "Ada Lovelace"
    for client in (team.admin, team.member):
        changed = (await client.get("/api/employees/assistant")).json()
        assert changed["name"] == "Ada Lovelace"
        assert changed["builtin"] is True
        assert changed["tool_overrides"] == {"notes.add": "ALLOW"}
        assert changed["about"] == shipped["about"]  # untouched fields keep the shipped value
    listed = (await team.member.get("/api/employees")).json()
    assert [(e["slug"], e["name"]) for e in listed] == [
        ("assistant", "Ada Lovelace"),
        ("scout", "Scout"),
    ]

    reset = await team.admin.post("/api/employees/assistant/reset")
    assert reset.status_code == 200, reset.text
    assert reset.json() == shipped
    assert (await team.admin.get("/api/employees/assistant")).json() == shipped
    # Resetting a built-in without an override is harmless; only built-ins can be reset.
    assert (await team.admin.post("/api/employees/assistant/reset")).json() == shipped
    await team.admin.post("/api/employees", json=_new_employee())
    _error(await team.admin.post("/api/employees/chef/reset"), 404, "not_found")


async def test_builtins_are_never_deleted_and_custom_employees_are(team: Team) -> None:
    for slug in ("assistant", "scout"):
        _error(await team.admin.delete(f"/api/employees/{slug}"), 409, "builtin_employee")
    await team.admin.patch("/api/employees/scout", json={"name": "Scouty"})
    _error(await team.admin.delete("/api/employees/scout"), 409, "builtin_employee")
    assert (await team.admin.get("/api/employees/scout")).json()["name"] == "Scouty"

    assert (await team.admin.post("/api/employees", json=_new_employee())).status_code == 201
    response = await team.admin.delete("/api/employees/chef")
    assert response.status_code == 204 and response.content == b""
    _error(await team.admin.get("/api/employees/chef"), 404, "not_found")
    assert "chef" not in [e["slug"] for e in (await team.admin.get("/api/employees")).json()]
    _error(await team.admin.delete("/api/employees/chef"), 404, "not_found")
    # The slug is free again.
    assert (await team.admin.post("/api/employees", json=_new_employee())).status_code == 201


async def test_a_disabled_employee_is_hidden_and_takes_no_new_messages(team: Team) -> None:
    started = await team.member.post("/api/conversations", json={"employee": "scout"})
    assert started.status_code == 201, started.text
    conversation_id = started.json()["id"]
    assert started.json()["employee"] == "scout"

    response = await team.admin.patch("/api/employees/scout", json={"disabled": True})
    assert response.status_code == 200 and response.json()["disabled"] is True

    member_list = (await team.member.get("/api/employees")).json()
    assert [e["slug"] for e in member_list] == ["assistant"]
    hidden = await team.member.get("/api/employees", params={"include_disabled": "true"})
    assert [e["slug"] for e in hidden.json()] == ["assistant"]
    _error(await team.member.get("/api/employees/scout"), 404, "not_found")
    assert [e["slug"] for e in (await team.admin.get("/api/employees")).json()] == ["assistant"]
    with_disabled = await team.admin.get("/api/employees", params={"include_disabled": "true"})
    assert [(e["slug"], e["disabled"]) for e in with_disabled.json()] == [
        ("assistant", False),
        ("scout", True),
    ]

    for client in (team.member, team.admin):
        refused = await client.post("/api/conversations", json={"employee": "scout"})
        _error(refused, 409, "employee_disabled")
    assert len((await team.member.get("/api/conversations")).json()) == 1

    url = f"/api/conversations/{conversation_id}"
    _error(
        await team.member.post(f"{url}/messages", json={"content": "hi"}), 409, "employee_disabled"
    )
    detail = await team.member.get(url)  # still readable
    assert detail.status_code == 200 and detail.json()["messages"] == []
    with team.server.services.db.session() as session:
        assert (
            session.exec(select(Message).where(Message.conversation_id == conversation_id)).all()
            == []
        )
        assert session.exec(select(Run).where(Run.conversation_id == conversation_id)).all() == []

    await team.admin.patch("/api/employees/scout", json={"disabled": False})
    accepted = await team.member.post(f"{url}/messages", json={"content": "hi"})
    assert accepted.status_code == 202, accepted.text
    await team.server.idle()


async def test_commands_list_what_the_employee_may_use(team: Team) -> None:
    ada = await team.member.get("/api/employees/assistant/commands")
    assert ada.status_code == 200, ada.text
    assert ada.json() == [
        {
            "skill": "notes",
            "command": "notes",
            "title": "Add a note",
            "description": "Save the rest of the line as a note",
            "tool": "notes.add",
        }
    ]
    scout = await team.member.get("/api/employees/scout/commands")
    assert scout.status_code == 200 and scout.json() == []  # notes is not available to Scout
    _error(await team.member.get("/api/employees/nobody/commands"), 404, "not_found")

    # A denied bound tool takes the command off the menu.
    await team.admin.patch(
        "/api/employees/assistant", json={"tool_overrides": {"notes.add": "DENY"}}
    )
    assert (await team.member.get("/api/employees/assistant/commands")).json() == []
