"""AI employees over HTTP: everyone reads them, only admins change them.

Built-ins (``assistant``/Ada and ``scout``/Scout) can be overridden, reset and disabled, never
deleted; admin-made employees can be deleted. Members never see the system prompt. A disabled
employee is hidden from members, cannot start conversations, and its conversations refuse
new messages. ``/commands`` lists the slash commands the employee may use.
"""

from __future__ import annotations

from sqlmodel import select

from interlock.storage import Message, Run
from support.api_errors import error_of
from support.employees_api import Team, new_employee

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

    error_of(await team.member.get("/api/employees/nobody"), 404, "not_found")


async def test_members_may_not_change_employees(team: Team) -> None:
    attempts = [
        await team.member.post("/api/employees", json=new_employee()),
        await team.member.patch("/api/employees/assistant", json={"name": "Eve"}),
        await team.member.delete("/api/employees/assistant"),
        await team.member.post("/api/employees/assistant/reset"),
    ]
    for response in attempts:
        error_of(response, 403, "permission_denied")
    ada = (await team.admin.get("/api/employees/assistant")).json()
    assert ada["name"] == "Ada"
    assert [e["slug"] for e in (await team.admin.get("/api/employees")).json()] == [
        "assistant",
        "scout",
    ]


async def test_admin_creates_an_employee_and_slugs_are_unique(team: Team) -> None:
    response = await team.admin.post("/api/employees", json=new_employee())
    assert response.status_code == 201, response.text
    chef = response.json()
    assert chef["slug"] == "chef" and chef["builtin"] is False and chef["disabled"] is False
    assert chef["system_prompt"] == "You are Chef."
    assert chef["tool_overrides"] == {"notes.add": "DENY"}
    assert chef["model"] is None

    listed = (await team.member.get("/api/employees")).json()
    assert [e["slug"] for e in listed] == ["assistant", "scout", "chef"]
    assert listed[2]["system_prompt"] == ""

    again = await team.admin.post("/api/employees", json=new_employee(name="Other chef"))
    error_of(again, 409, "employee_exists")
    for builtin in ("assistant", "scout"):
        taken = await team.admin.post("/api/employees", json=new_employee(builtin))
        error_of(taken, 409, "employee_exists")
    assert (await team.admin.get("/api/employees/assistant")).json()["name"] == "Ada"
    assert (await team.admin.get("/api/employees/chef")).json()["name"] == "Chef"


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
    await team.admin.post("/api/employees", json=new_employee())
    error_of(await team.admin.post("/api/employees/chef/reset"), 404, "not_found")


async def test_builtins_are_never_deleted_and_custom_employees_are(team: Team) -> None:
    for slug in ("assistant", "scout"):
        error_of(await team.admin.delete(f"/api/employees/{slug}"), 409, "builtin_employee")
    await team.admin.patch("/api/employees/scout", json={"name": "Scouty"})
    error_of(await team.admin.delete("/api/employees/scout"), 409, "builtin_employee")
    assert (await team.admin.get("/api/employees/scout")).json()["name"] == "Scouty"

    assert (await team.admin.post("/api/employees", json=new_employee())).status_code == 201
    response = await team.admin.delete("/api/employees/chef")
    assert response.status_code == 204 and response.content == b""
    error_of(await team.admin.get("/api/employees/chef"), 404, "not_found")
    assert "chef" not in [e["slug"] for e in (await team.admin.get("/api/employees")).json()]
    error_of(await team.admin.delete("/api/employees/chef"), 404, "not_found")
    # The slug is free again.
    assert (await team.admin.post("/api/employees", json=new_employee())).status_code == 201


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
    error_of(await team.member.get("/api/employees/scout"), 404, "not_found")
    assert [e["slug"] for e in (await team.admin.get("/api/employees")).json()] == ["assistant"]
    with_disabled = await team.admin.get("/api/employees", params={"include_disabled": "true"})
    assert [(e["slug"], e["disabled"]) for e in with_disabled.json()] == [
        ("assistant", False),
        ("scout", True),
    ]

    for client in (team.member, team.admin):
        refused = await client.post("/api/conversations", json={"employee": "scout"})
        error_of(refused, 409, "employee_disabled")
    assert len((await team.member.get("/api/conversations")).json()) == 1

    url = f"/api/conversations/{conversation_id}"
    error_of(
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
    error_of(await team.member.get("/api/employees/nobody/commands"), 404, "not_found")

    # A denied bound tool takes the command off the menu.
    await team.admin.patch(
        "/api/employees/assistant", json={"tool_overrides": {"notes.add": "DENY"}}
    )
    assert (await team.member.get("/api/employees/assistant/commands")).json() == []
