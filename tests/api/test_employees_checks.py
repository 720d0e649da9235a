"""AI employees over HTTP: what an admin may not save (unknown skills, tools and approvers,
badly formed fields and patches) is refused with words an admin reads, and what is saved is
shown as one clean line per field."""

from __future__ import annotations

from typing import Any

import pytest

from interlock.storage.groups import add_member, remove_member
from support.api_errors import error_of
from support.employees_api import Team, new_employee


async def test_unknown_skills_and_tools_are_refused_with_their_names(team: Team) -> None:
    bad = new_employee(
        "ghost",
        pinned_skills=["notes", "astrology"],
        available_skills=["*", "tarot"],
        tool_overrides={"notes.add": "ASK", "crystal.ball": "DENY"},
    )
    error = error_of(await team.admin.post("/api/employees", json=bad), 422, "unknown_reference")
    assert error["details"] == {
        "skills": ["astrology", "tarot"],
        "tools": ["crystal.ball"],
        "users": [],
        "groups": [],
    }
    assert "astrology" in error["message"] and "crystal.ball" in error["message"]
    error_of(await team.admin.get("/api/employees/ghost"), 404, "not_found")

    patch = await team.admin.patch(
        "/api/employees/assistant", json={"tool_overrides": {"nope.tool": "ALLOW"}}
    )
    assert error_of(patch, 422, "unknown_reference")["details"]["tools"] == ["nope.tool"]
    patch = await team.admin.patch("/api/employees/assistant", json={"pinned_skills": ["zzz"]})
    assert error_of(patch, 422, "unknown_reference")["details"]["skills"] == ["zzz"]
    assert (await team.admin.get("/api/employees/assistant")).json()["pinned_skills"] == [
        "notes",
        "suggestions",
    ]


async def test_unknown_approvers_are_refused_on_create_and_patch(team: Team) -> None:
    bad = new_employee("ghost", approvers=["mia", "nobody", "group:nope"])
    error = error_of(await team.admin.post("/api/employees", json=bad), 422, "unknown_reference")
    assert error["details"] == {"skills": [], "tools": [], "users": ["nobody"], "groups": ["nope"]}
    assert "nobody" in error["message"] and "create the group first" in error["message"]
    assert "interlock groups add nope USER" in error["message"]
    error_of(await team.admin.get("/api/employees/ghost"), 404, "not_found")

    patch = await team.admin.patch("/api/employees/assistant", json={"approvers": ["group:x"]})
    assert error_of(patch, 422, "unknown_reference")["details"]["groups"] == ["x"]
    patch = await team.admin.patch("/api/employees/assistant", json={"approvers": ["nobody"]})
    assert error_of(patch, 422, "unknown_reference")["details"]["users"] == ["nobody"]
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
    assert error_of(patch, 422, "unknown_reference")["details"]["groups"] == ["nope"]


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
    response = await team.admin.post("/api/employees", json=new_employee(**change))
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
        response = await team.admin.post("/api/employees", json=new_employee(**change))
        errors = error_of(response, 422, "invalid_request")["details"]["errors"]
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
    error_of(await team.admin.patch("/api/employees/nobody", json={"name": "X"}), 404, "not_found")
    ada = (await team.admin.get("/api/employees/assistant")).json()
    assert ada["model"] is None and ada["slug"] == "assistant" and ada["builtin"] is True


ONE_LINE = (
    "{} is one line of visible characters, single spaces between words: no line breaks, "
    "tabs, control or invisible characters."
)


async def test_names_and_job_titles_with_hidden_characters_are_refused_as_user_names_are(
    team: Team,
) -> None:
    """Was: 201, the bidi override and zero-width space silently dropped ("Hal evil" saved);
    user names refuse them. Now refused on create and patch with the user names' words."""
    for change, field in (
        ({"name": "Hal ‮evil"}, "name"),
        ({"name": "Chef\n‮Bot​"}, "name"),
        ({"name": "Chef  Bot"}, "name"),
        ({"name": " ​ "}, "name"),
        ({"title": "Head\tcook"}, "title"),
        ({"title": "Head cook ⁦of the day"}, "title"),
    ):
        response = await team.admin.post("/api/employees", json=new_employee(**change))
        errors = error_of(response, 422, "invalid_request")["details"]["errors"]
        what = "An employee's name" if field == "name" else "An employee's title"
        assert [(e["path"], e["message"]) for e in errors] == [
            (["body", field], ONE_LINE.format(what))
        ]
        patch = await team.admin.patch("/api/employees/assistant", json=change)
        errors = error_of(patch, 422, "invalid_request")["details"]["errors"]
        assert [(e["path"], e["message"]) for e in errors] == [
            (["body", field], ONE_LINE.format(what))
        ]
    assert (await team.admin.get("/api/employees/assistant")).json()["name"] == "Ada"
    # Surrounding spaces are trimmed, as before.
    response = await team.admin.post(
        "/api/employees", json=new_employee(name="  Chef Bot ", title=" Head cook ")
    )
    assert response.status_code == 201, response.text
    assert (response.json()["name"], response.json()["title"]) == ("Chef Bot", "Head cook")


def test_a_user_name_with_hidden_characters_is_refused_in_the_same_words(
    api_settings: Any,
) -> None:
    from interlock.errors import BadRequest
    from interlock.storage import Database
    from interlock.storage.users import create_user

    db = Database(api_settings.database_url)
    try:
        with pytest.raises(BadRequest) as refused:
            create_user(db, "ann ‮evil")
    finally:
        db.dispose()
    assert refused.value.code == "invalid_request"
    assert refused.value.message == (
        ONE_LINE.format("A user name").removesuffix(".") + ", and not starting with 'group:'."
    )


async def test_blank_starter_prompts_are_left_out_not_shown_as_empty_buttons(team: Team) -> None:
    response = await team.admin.post(
        "/api/employees", json=new_employee(starter_prompts=["", "Plan dinner", " \u200b\n"])
    )
    assert response.status_code == 201, response.text
    assert response.json()["starter_prompts"] == ["Plan dinner"]

    patched = await team.admin.patch("/api/employees/chef", json={"starter_prompts": ["  "]})
    assert patched.status_code == 200, patched.text
    assert (await team.member.get("/api/employees/chef")).json()["starter_prompts"] == []


async def test_allow_for_a_question_tool_is_refused_naming_it_by_its_title(team: Team) -> None:
    """Found in a tryout: ``tool_overrides: {"ask.choice": "ALLOW"}`` was saved and shown as
    Allow, yet the question still asked (question tools always ask)."""
    bad = new_employee("asker", tool_overrides={"ask.choice": "ALLOW"})
    error = error_of(await team.admin.post("/api/employees", json=bad), 422, "question_always_asks")
    assert error["details"] == {"tools": ["ask.choice"]}
    assert error["message"] == (
        "“Ask to choose” always asks the person, so it cannot be set to Allow: choose Ask or Deny."
    )
    error_of(await team.admin.get("/api/employees/asker"), 404, "not_found")

    patch = await team.admin.patch(
        "/api/employees/assistant",
        json={"tool_overrides": {"ask.choice": "ALLOW", "ask.form": "ALLOW"}},
    )
    assert error_of(patch, 422, "question_always_asks")["details"] == {
        "tools": ["ask.choice", "ask.form"]
    }
    # Ask and Deny stay open to question tools.
    ok = new_employee("asker", tool_overrides={"ask.choice": "DENY", "ask.form": "ASK"})
    assert (await team.admin.post("/api/employees", json=ok)).status_code == 201
