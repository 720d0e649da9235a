"""Who a waiting call waits for, as each person reads it (``ToolCallOut.waiting_for``).

Tryout: a call of ann's needing an approver (``require_approver``, two approvals) showed ann
"Waiting for you", a banner asking for her decision and "1 decision" in the sidebar and tab
title, though she may only reject it. The server now says, per reader: ``approvers`` to the
owner (conversation reads, events, summary counts, her Approvals list leave it out) and
``you`` to the approvers.
"""

from __future__ import annotations

from support.office import Office, office

__all__ = ["office"]


async def test_a_call_needing_an_approver_waits_for_the_approvers_not_its_owner(
    office: Office,
) -> None:
    await office.rules(
        tool_approvals={"notes.add": {"require_approver": True, "approvals_required": 2}}
    )
    conversation_id, event_call, _last = await office.paused_call("a note approver view")
    owner, ana = office.clients["owner"], office.clients["ana"]

    detail = (await owner.get(f"/api/conversations/{conversation_id}")).json()
    [call] = [c for m in detail["messages"] for c in m["tool_calls"]]
    [summary] = [
        c for c in (await owner.get("/api/conversations")).json() if c["id"] == conversation_id
    ]
    own = (await owner.get("/api/approvals")).json()
    [theirs] = (await ana.get("/api/approvals")).json()

    assert event_call["waiting_for"] == call["waiting_for"] == "approvers"
    assert (summary["status"], summary["pending"]) == ("paused", 0)
    assert own == []
    assert theirs["role"] == "approver"
    assert theirs["tool_call"]["waiting_for"] == "you"


async def test_a_call_the_owner_decides_waits_for_them_until_decided(office: Office) -> None:
    conversation_id, event_call, _last = await office.paused_call("a note tea")
    owner = office.clients["owner"]
    [summary] = [
        c for c in (await owner.get("/api/conversations")).json() if c["id"] == conversation_id
    ]
    assert event_call["waiting_for"] == "you" and summary["pending"] == 1

    decided = await office.decide("owner", event_call["id"], type="reject")

    assert decided.status_code == 200, decided.text
    assert decided.json()["waiting_for"] is None
