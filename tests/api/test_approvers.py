"""Who may decide: the owner or the employee's approvers; ``require_approver``; several approvals.

Users: ``owner`` (member, owns the conversations), ``ana`` and ``ben`` (approvers of the
employee ``assistant``: ana by name, ben through the group ``finance``), ``eve`` (member, no
role) and ``boss`` (admin, sets the employee's rules).
"""

from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import select

from interlock.storage import Decision, ToolCall
from support.office import Office, office
from support.sse import collect, terminals

__all__ = ["office"]


async def test_an_approver_decides_and_a_stranger_gets_404(office: Office) -> None:
    conversation_id, call, last = await office.paused_call("a")
    for who in ("eve",):
        response = await office.decide(who, call["id"], type="approve")
        assert response.status_code == 404, response.text
        assert response.json()["error"]["code"] == "not_found"
    # An approver cannot read the conversation itself.
    response = await office.clients["ana"].get(f"/api/conversations/{conversation_id}")
    assert response.status_code == 404
    response = await office.decide("ben", call["id"], type="approve")  # through the group
    assert response.status_code == 200, response.text
    assert response.json()["decision"]["user_id"] != call["id"]
    log = await collect(
        office.clients["owner"], conversation_id, until=terminals(1), last_event_id=last
    )
    assert log.types[-1] == "run.completed", log.types
    await office.server.idle()
    assert office.notes() == ["note 0"]


async def test_require_approver_refuses_the_owners_approval_but_not_their_reject(
    office: Office,
) -> None:
    await office.rules(tool_approvals={"notes.add": {"require_approver": True}})
    _conversation_id, call, _last = await office.paused_call("b")
    assert call["require_approver"] is True
    response = await office.decide("owner", call["id"], type="approve")
    assert response.status_code == 403, response.text
    assert response.json()["error"]["code"] == "approver_required"
    response = await office.decide("owner", call["id"], type="edit", args={"text": "b2"})
    assert response.status_code == 403, response.text
    assert office.notes() == []
    response = await office.decide("ana", call["id"], type="approve")
    assert response.status_code == 200, response.text
    await office.server.idle()
    assert office.notes() == ["note 0"]

    _conversation_id, call, _last = await office.paused_call("c")
    response = await office.decide("owner", call["id"], type="reject", message="not now")
    assert response.status_code == 200, response.text
    await office.server.idle()
    assert office.notes() == ["note 0"]


async def test_two_approvals_from_distinct_people_run_the_call_once(office: Office) -> None:
    await office.rules(tool_approvals={"notes.add": {"approvals_required": 2}})
    conversation_id, call, last = await office.paused_call("d")
    assert call["approvals_required"] == 2 and call["approvals"] == []

    first = await office.decide("owner", call["id"], type="approve")
    assert first.status_code == 200, first.text
    body = first.json()
    assert body["decision"] is None and body["status"] == "interrupted"
    assert [a["user_name"] for a in body["approvals"]] == ["owner"]
    again = await office.decide("owner", call["id"], type="approve")
    assert again.status_code == 409, again.text
    assert again.json()["error"]["code"] == "already_approved"
    edit = await office.decide("ana", call["id"], type="edit", args={"text": "d2"})
    assert edit.status_code == 422, edit.text
    refused = edit.json()["error"]
    assert refused["code"] == "edit_needs_one_approval", refused
    assert refused["details"] == {"approvals_required": 2}
    assert "2 people's approvals" in refused["message"]
    await office.server.idle()
    assert office.notes() == []
    pending = await office.clients["owner"].get(f"/api/conversations/{conversation_id}/pending")
    assert [c["id"] for c in pending.json()] == [call["id"]]

    second = await office.decide("ana", call["id"], type="approve")
    assert second.status_code == 200, second.text
    body = second.json()
    assert body["decision"]["type"] == "approve"
    assert [a["user_name"] for a in body["approvals"]] == ["owner", "ana"]
    log = await collect(
        office.clients["owner"], conversation_id, until=terminals(1), last_event_id=last
    )
    assert log.types[-1] == "run.completed", log.types
    await office.server.idle()
    assert office.notes() == ["note 0"]
    events = await collect(
        office.clients["owner"],
        conversation_id,
        until=lambda log: "run.completed" in log.types,
    )
    assert len(events.of("tool_call.approved")) == 1
    assert len(events.of("tool_call.decided")) == 1
    assert len(events.of("tool_call.running")) == 1
    detail = (await office.clients["owner"].get(f"/api/conversations/{conversation_id}")).json()
    (shown,) = [c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call["id"]]
    assert [a["user_name"] for a in shown["approvals"]] == ["owner", "ana"]


async def test_any_reject_ends_a_call_needing_two_approvals(office: Office) -> None:
    await office.rules(tool_approvals={"notes.add": {"approvals_required": 2}})
    _conversation_id, call, _last = await office.paused_call("e")
    assert (await office.decide("ana", call["id"], type="approve")).status_code == 200
    response = await office.decide("ben", call["id"], type="reject", message="no budget")
    assert response.status_code == 200, response.text
    late = await office.decide("owner", call["id"], type="approve")
    assert late.status_code == 409, late.text
    assert late.json()["error"]["details"]["decision"]["type"] == "reject"
    await office.server.idle()
    assert office.notes() == []
    with office.server.services.db.session() as session:
        row = session.get(ToolCall, call["id"])
        assert row is not None and row.status == "rejected"
        decisions = session.exec(select(Decision).where(Decision.tool_call_id == call["id"]))
        assert [d.type for d in decisions.all()] == ["reject"]


async def test_an_approver_named_in_other_case_is_the_same_person(office: Office) -> None:
    """User names are unique regardless of case, so "ANA" in approvers names ana (it once
    matched only a user named exactly "ANA", and the employee's page listed no one)."""
    await office.rules(approvers=["ANA"])
    _conversation_id, call, _last = await office.paused_call("c")

    response = await office.decide("ana", call["id"], type="approve")
    assert response.status_code == 200, response.text
    waiting = await office.clients["ana"].get("/api/approvals")
    assert waiting.status_code == 200, waiting.text


async def test_removing_an_approver_takes_effect_on_the_next_decision(office: Office) -> None:
    _conversation_id, call, _last = await office.paused_call("f")
    await office.rules(approvers=["ana"])
    response = await office.decide("ben", call["id"], type="approve")
    assert response.status_code == 404, response.text


@pytest.mark.parametrize("value", [0, 6])
async def test_approvals_required_out_of_range_is_refused_with_a_reason(
    office: Office, value: int
) -> None:
    response = await office.clients["boss"].patch(
        "/api/employees/assistant",
        json={"tool_approvals": {"notes.add": {"approvals_required": value}}},
    )
    assert response.status_code == 422, response.text
    text = response.text
    assert "approvals_required" in text
    assert ("at least 1" if value == 0 else "at most 5") in text


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        # The owner may not approve, one approver: two distinct approvals can never happen
        # (once accepted with 200; every such call could only expire).
        (
            {
                "approvers": ["ana"],
                "tool_approvals": {
                    "notes.add": {"require_approver": True, "approvals_required": 2}
                },
            },
            "Calls to “Add a note” need 2 different people's approvals, but “Only approvers may "
            "approve” keeps the conversation's owner from approving and its approvers list "
            "names 1 person. Add approvers (or a group), or lower “Approvals needed”.",
        ),
        (
            {"approvers": ["ana"], "tool_approvals": {"notes.add": {"approvals_required": 3}}},
            "only the conversation's owner and 1 approver can approve. Add approvers (or a "
            "group), or lower “Approvals needed”.",
        ),
        (
            {"approvers": [], "tool_approvals": {"notes.add": {"require_approver": True}}},
            "Nobody could approve calls to “Add a note”: “Only approvers may approve” keeps the "
            "conversation's owner from approving, and the employee has no approvers. Add an "
            "approver (or a group), or turn “Only approvers may approve” off.",
        ),
    ],
)
async def test_a_rule_nobody_can_satisfy_is_refused_on_change_and_creation(
    office: Office, fields: dict[str, Any], reason: str
) -> None:
    boss = office.clients["boss"]
    changed = await boss.patch("/api/employees/assistant", json=fields)
    created = await boss.post("/api/employees", json={"slug": "clerk", "name": "Clerk", **fields})

    for response in (changed, created):
        assert response.status_code == 422, response.text
        error = response.json()["error"]
        assert error["code"] == "invalid_request" and reason in error["message"], error
        assert "approvals_required" not in error["message"], error  # labels, not keys
        assert "require_approver" not in error["message"] and "notes.add" not in error["message"]
        [field] = error["details"]["errors"]
        assert (field["path"], field["rule"]) == (["tool_approvals", "notes.add"], "unsatisfiable")
    assert (await boss.get("/api/employees/clerk")).status_code == 404
    stored = (await boss.get("/api/employees/assistant")).json()
    assert stored["approvers"] == ["ana", "group:finance"] and stored["tool_approvals"] == {}


async def test_a_rule_met_by_the_owner_or_a_group_is_accepted(office: Office) -> None:
    """Without require_approver the owner's approval counts; a group may hold anyone."""
    await office.rules(approvers=["ana"], tool_approvals={"notes.add": {"approvals_required": 2}})
    await office.rules(
        approvers=["group:finance"],
        tool_approvals={"notes.add": {"require_approver": True, "approvals_required": 3}},
    )


async def test_an_approver_sees_calls_waiting_in_other_peoples_conversations_only(
    office: Office,
) -> None:
    conversation_id, call, _last = await office.paused_call("g")
    (item,) = (await office.clients["ana"].get("/api/approvals")).json()
    assert item["role"] == "approver"
    assert item["requested_by"] == "owner"
    assert item["tool_call"]["id"] == call["id"]
    assert item["message"] == "Adding."
    assert item["conversation"]["id"] == conversation_id
    assert item["conversation"]["title"] == "owner's conversation"  # not the owner's title
    assert "messages" not in item["conversation"]
    (through_group,) = (await office.clients["ben"].get("/api/approvals")).json()
    assert through_group["tool_call"]["id"] == call["id"]
    assert (await office.clients["eve"].get("/api/approvals")).json() == []
    (own,) = (await office.clients["owner"].get("/api/approvals")).json()
    assert own["role"] == "owner" and own["requested_by"] is None
    assert own["conversation"]["title"] != "owner's conversation"

    response = await office.decide("ana", call["id"], type="approve")
    assert response.status_code == 200, response.text
    await office.server.idle()
    assert (await office.clients["ana"].get("/api/approvals")).json() == []
    assert (await office.clients["owner"].get("/api/approvals")).json() == []


async def test_a_call_expiring_after_one_of_two_approvals_says_so(office: Office) -> None:
    """Found in QA: with 2 approvals needed, one given, then the deadline passed: the model and
    the card said "nobody decided within ...". They say how many approvals arrived."""
    from datetime import UTC, datetime

    from interlock.engine.expiry import expire_due

    await office.rules(tool_approvals={"notes.add": {"approvals_required": 2}})
    conversation_id, call, _last = await office.paused_call("f")
    assert (await office.decide("ana", call["id"], type="approve")).status_code == 200
    engine = office.server.services.engine
    assert await engine.db.run(expire_due, engine, datetime(2100, 1, 1, tzinfo=UTC)) == [call["id"]]
    await office.server.idle()
    owner = office.clients["owner"]
    detail = (await owner.get(f"/api/conversations/{conversation_id}")).json()
    (shown,) = [c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == call["id"]]
    assert shown["status"] == "expired"
    # The tool message the model reads and the card shows.
    (said,) = [m["content"] for m in detail["messages"] if m.get("tool_call_id") == call["id"]]
    assert said.startswith("Not approved in time: only 1 of 2 approvals arrived within "), said
    assert "nobody" not in said
    late = await office.decide("owner", call["id"], type="approve")
    assert late.status_code == 409, late.text
    error = late.json()["error"]
    assert error["code"] == "not_interrupted" and error["details"]["status"] == "expired"
    assert error["message"] == (
        "Too late: only 1 of 2 approvals arrived in time, so this call expired and did not run."
    )


async def test_a_decision_on_a_closed_call_says_why_it_is_closed(office: Office) -> None:
    """Found in QA: deciding a call cancelled when its owner turned AI actions off answered
    "This tool call is not waiting for a decision." with no reason. Every status says why."""
    _conversation_id, call, _last = await office.paused_call("g")
    owner = office.clients["owner"]
    switched = await owner.put("/api/actions/assistant", json={"on": False})
    assert switched.status_code == 200, switched.text
    await office.server.idle()
    late = await office.decide("ana", call["id"], type="approve")
    assert late.status_code == 409, late.text
    error = late.json()["error"]
    assert error["code"] == "not_interrupted" and error["details"]["status"] == "cancelled"
    assert error["message"].startswith("Too late: this call was cancelled and did not run. ")
    assert "AI actions" in error["message"], error["message"]
    name = switched.json()["employee_name"]
    # The approver reads who did it, not the owner's "You turned off ..." (found in QA).
    assert error["message"].endswith(f" owner turned off AI actions for {name}."), error
    assert error["details"]["tool_call"]["error"]["message"] == (
        f"owner turned off AI actions for {name}."
    )
    mine = (await office.decide("owner", call["id"], type="reject")).json()["error"]
    assert mine["message"].endswith(f" You turned off AI actions for {name}."), mine
    assert (await owner.put("/api/actions/assistant", json={"on": True})).status_code == 200

    # Decided by someone else: who, and what came of it.
    _conversation_id, call, _last = await office.paused_call("h")
    assert (await office.decide("ana", call["id"], type="reject")).status_code == 200
    await office.server.idle()
    late = await office.decide("owner", call["id"], type="approve")
    assert late.status_code == 409, late.text
    assert late.json()["error"]["message"] == "Already decided: ana rejected this call."
    _conversation_id, call, _last = await office.paused_call("i")
    assert (await office.decide("owner", call["id"], type="approve")).status_code == 200
    await office.server.idle()
    late = await office.decide("ana", call["id"], type="reject")
    assert (
        late.json()["error"]["message"] == "Already decided: owner approved this call. It has run."
    )
