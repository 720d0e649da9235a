"""An employee that does not exist is one stable code across the API: named in the path it is
404 ``not_found``; named in a body it is 422 ``unknown_reference`` with
``details.employees``, as every other unknown name in a body (skills, tools, approvers). It
was 422 ``invalid_request`` for a new conversation while the switch and the employee's own
routes said 404."""

from __future__ import annotations

from support.api_errors import error_of
from support.employees_api import Team


async def test_an_unknown_employee_in_a_path_is_404_and_in_a_body_unknown_reference(
    team: Team,
) -> None:
    for response in (
        await team.member.put("/api/actions/nobody", json={"on": False}),
        await team.admin.patch("/api/employees/nobody", json={"name": "No one"}),
        await team.admin.delete("/api/employees/nobody"),
        await team.member.get("/api/employees/nobody"),
    ):
        error_of(response, 404, "not_found")

    for response in (
        await team.member.post("/api/conversations", json={"employee": "nobody"}),
        await team.member.post(
            "/api/grants", json={"tool": "notes.add", "scope": "employee", "employee": "nobody"}
        ),
    ):
        error = error_of(response, 422, "unknown_reference")
        assert error["details"] == {"employees": ["nobody"]}
        assert error["message"] == "There is no employee 'nobody': check the name."
    assert (await team.member.get("/api/conversations")).json() == []
    assert (await team.member.get("/api/grants")).json() == []
