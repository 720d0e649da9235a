"""Approval rules nobody could meet are refused where employees are written or shipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from interlock.employees import load_builtin
from interlock.employees.spec import Employee, unsatisfiable_rules


def test_a_shipped_employee_with_a_rule_nobody_can_meet_does_not_load(tmp_path: Path) -> None:
    path = tmp_path / "builtin.yaml"
    path.write_text(
        "- slug: clerk\n  name: Clerk\n  system_prompt: Hi.\n  approvers: [bob]\n"
        "  tool_approvals:\n    notes.add: {require_approver: true, approvals_required: 2}\n",
        encoding="utf-8",
    )

    with pytest.raises(ValueError, match=r"clerk: Calls to 'notes\.add' need 2 different people"):
        load_builtin(path)


def test_the_shipped_employees_rules_can_all_be_met() -> None:
    assert all(unsatisfiable_rules(e) == [] for e in load_builtin().values())


def test_approvers_differing_only_by_case_are_one_person() -> None:
    employee = Employee(
        slug="clerk",
        name="Clerk",
        approvers=["bob", "BOB"],
        tool_approvals={"notes.add": {"require_approver": True, "approvals_required": 2}},
    )

    [error] = unsatisfiable_rules(employee)
    assert "names 1 person" in str(error["message"])


def test_a_stored_employee_with_such_a_rule_still_loads() -> None:
    """Stored before the check: it is not a validator of the model, so the server starts."""
    employee = Employee(
        slug="clerk",
        name="Clerk",
        tool_approvals={"notes.add": {"require_approver": True}},
    )
    assert employee.tool_approvals["notes.add"].require_approver is True
