"""A deleted employee runs nothing: its waiting calls close as cancelled when it is deleted,
and a decision on one of its calls is refused on the server (``employee_deleted``), as a
disabled employee's is (``employee_disabled``)."""

from __future__ import annotations

from sqlmodel import select

from interlock.storage import Run, ToolCall
from support.api_errors import error_of
from support.employees_api import Team, new_employee
from support.sse import collect, terminals

TEMPO = new_employee("temp", name="Tempo", pinned_skills=["notes"], tool_overrides={})


async def _waiting_call(team: Team) -> tuple[str, str]:
    """Tempo made by the admin; the member's conversation with it waits on ``notes.add``."""
    created = await team.admin.post("/api/employees", json=TEMPO)
    assert created.status_code == 201, created.text
    started = await team.member.post("/api/conversations", json={"employee": "temp"})
    assert started.status_code == 201, started.text
    conversation_id = started.json()["id"]
    said = await team.member.post(
        f"/api/conversations/{conversation_id}/messages", json={"content": "add a note temp"}
    )
    assert said.status_code == 202, said.text
    log = await collect(team.member, conversation_id, until=terminals(1))
    [call] = [e["tool_call"] for e in log.of("tool_call.interrupted")]
    assert call["name"] == "notes.add"
    return conversation_id, str(call["id"])


def _runs(team: Team, conversation_id: str) -> list[Run]:
    with team.server.services.db.session() as session:
        return list(session.exec(select(Run).where(Run.conversation_id == conversation_id)).all())


async def test_deleting_an_employee_cancels_its_waiting_calls_and_approving_runs_nothing(
    team: Team,
) -> None:
    conversation_id, call_id = await _waiting_call(team)
    decision = f"/api/tool-calls/{call_id}/decision"
    granted = await team.member.post(
        "/api/grants", json={"tool": "notes.add", "scope": "employee", "employee": "temp"}
    )
    assert granted.status_code == 201, granted.text
    await team.admin.patch("/api/employees/temp", json={"disabled": True})
    error_of(await team.member.post(decision, json={"type": "approve"}), 409, "employee_disabled")

    deleted = await team.admin.delete("/api/employees/temp")
    assert deleted.status_code == 204, deleted.text

    # The call closed with the delete: its event went out, the Approvals view drops it.
    log = await collect(
        team.member, conversation_id, until=lambda log: bool(log.of("tool_call.completed"))
    )
    [closed] = [e["tool_call"] for e in log.of("tool_call.completed")]
    assert closed["id"] == call_id and closed["status"] == "cancelled"
    assert closed["error"]["message"] == "An admin deleted Tempo, so nothing of it runs."
    assert (await team.member.get("/api/approvals")).json() == []
    assert (await team.member.get(f"/api/conversations/{conversation_id}/pending")).json() == []

    refused = error_of(
        await team.member.post(decision, json={"type": "approve"}), 409, "not_interrupted"
    )
    assert refused["details"]["status"] == "cancelled"
    await team.server.idle()
    assert [run.trigger for run in _runs(team, conversation_id)] == ["message"]
    with team.server.services.db.session() as session:
        call = session.get(ToolCall, call_id)
        assert call is not None and call.status == "cancelled" and call.started_at is None
    # Its "don't ask again" grants went with it: a new Tempo inherits none.
    assert (await team.member.get("/api/grants")).json() == []
    assert (await team.admin.post("/api/employees", json=TEMPO)).status_code == 201
    assert (await team.member.get("/api/grants")).json() == []
    audit = (await team.admin.get("/api/audit", params={"tool": "notes.add"})).json()
    [record] = audit["records"]
    assert (record["outcome"], record["reason"]) == ("cancelled", "Tempo was deleted.")


async def test_a_decision_on_a_call_of_a_deleted_employee_is_refused_on_the_server(
    team: Team,
) -> None:
    """The re-check at the decision itself: a call still waiting when its employee is gone
    (deleted by another worker between the close and the decision, say) never runs."""
    conversation_id, call_id = await _waiting_call(team)
    team.server.services.employees.delete("temp")  # the record only: the call still waits
    decision = f"/api/tool-calls/{call_id}/decision"
    for body in ({"type": "approve"}, {"type": "edit", "args": {"text": "x"}}):
        refused = error_of(await team.member.post(decision, json=body), 409, "employee_deleted")
        assert refused["message"] == "This conversation's employee was deleted; nothing of it runs."
    await team.server.idle()
    assert [run.trigger for run in _runs(team, conversation_id)] == ["message"]
    with team.server.services.db.session() as session:
        call = session.get(ToolCall, call_id)
        assert call is not None and call.status == "interrupted" and call.decided_at is None
