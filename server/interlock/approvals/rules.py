"""Limits of the approval rules, checked wherever a rule is declared.

Kept free of other Interlock imports (pydantic only): tool registration, declarative tools, skill front matter
and employees all check their values here, so a rule is refused at load time with the same
reason everywhere.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, field_validator

MAX_APPROVALS_REQUIRED = 5
"""Most distinct people a call may need (``approvals_required``)."""

MAX_APPROVAL_TIMEOUT_S = 30 * 24 * 3600.0
"""Longest approval timeout a tool or employee may declare (30 days), in seconds."""


def approvals_required_problem(value: object) -> str | None:
    """Return why ``value`` is not a valid ``approvals_required``, or None when it is.

    A call needs 1 to 5 distinct approvals: 0 would let it run with nobody's approval, and
    more than 5 people are not gathered before a deadline.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        return f"approvals_required must be a whole number from 1 to 5, got {value!r}"
    if value < 1:
        return (
            f"approvals_required is {value}: at least 1 person must approve "
            "(0 would let a call run with nobody's approval)"
        )
    if value > MAX_APPROVALS_REQUIRED:
        return (
            f"approvals_required is {value}: at most {MAX_APPROVALS_REQUIRED} distinct people "
            "may be required"
        )
    return None


def approval_timeout_problem(value: object) -> str | None:
    """Return why ``value`` is not a valid approval timeout in seconds, or None when it is."""
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not 0 < value <= MAX_APPROVAL_TIMEOUT_S
    ):
        return (
            "approval_timeout_s must be a number of seconds above 0 and at most 30 days "
            f"({MAX_APPROVAL_TIMEOUT_S:,.0f} seconds), got {value!r}"
        )
    return None


class ToolApprovalRule(BaseModel):
    """An employee's approval rule for one tool, over the tool's own declaration.

    Attributes:
        timeout_s: Seconds a call waits for a decision before it expires; None keeps the
            tool's (else the employee's, else the server's).
        require_approver: Only an approver may approve; None keeps the tool's.
        approvals_required: Distinct people who must approve (1 to 5); None keeps the tool's.
    """

    model_config = ConfigDict(extra="forbid", strict=True)

    timeout_s: float | None = Field(default=None, title="Approval timeout")
    require_approver: bool | None = Field(default=None, title="Only approvers may approve")
    approvals_required: int | None = Field(default=None, title="Approvals needed")

    @field_validator("approvals_required")
    @classmethod
    def _approvals(cls, value: int | None) -> int | None:
        problem = approvals_required_problem(value) if value is not None else None
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("timeout_s", mode="before")
    @classmethod
    def _timeout(cls, value: object) -> object:
        problem = approval_timeout_problem(value)
        if problem:
            raise ValueError(problem.replace("approval_timeout_s", "timeout_s"))
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


def unsatisfiable_rule_problem(
    tool: str,
    rule: ToolApprovalRule,
    approvers: list[str],
    *,
    group_prefix: str = "group:",
    labels: Mapping[str, str] | None = None,
) -> str | None:
    """Why no conversation could ever gather the approvals ``rule`` asks for, or None.

    A call's approvals come from distinct people: its owner (unless ``require_approver``: the
    owner may then only reject) and the employee's approvers. ``approvals_required: 2`` with
    ``require_approver`` and one approver can never be met, nor can ``require_approver`` with
    no approvers at all: such a call could only expire. A group among the approvers may hold
    any number of people, so a list with one is not counted. Parts the rule leaves unset count
    as their defaults (``require_approver`` off, one approval).

    Args:
        tool: The tool as the message names it (its title, in quotes).
        rule: The employee's rule for it.
        approvers: The employee's ``approvers`` (user names, ``group:<name>``).
        group_prefix: How a group entry starts.
        labels: The rule's settings as people read them, by key (``approvals_required``:
            ``Approvals needed``); a key missing here is named by its key.

    Returns:
        The reason in words, or None when the rule can be met.
    """
    if any(entry.startswith(group_prefix) for entry in approvers):
        return None
    required = rule.approvals_required or 1
    owner_may = not rule.require_approver
    people = len({name.casefold() for name in approvers})
    if required <= people + (1 if owner_may else 0):
        return None
    named = labels or {}
    needed = f"“{named.get('approvals_required', 'approvals_required')}”"
    only_approvers = f"“{named.get('require_approver', 'require_approver')}”"
    listed = (
        "the employee has no approvers"
        if people == 0
        else f"its approvers list names {people} {'person' if people == 1 else 'people'}"
    )
    if owner_may:
        return (
            f"Calls to {tool} need {required} different people's approvals, but only the "
            f"conversation's owner and {people} approver{'s' if people != 1 else ''} can "
            f"approve. Add approvers (or a group), or lower {needed}."
        )
    if required == 1:
        return (
            f"Nobody could approve calls to {tool}: {only_approvers} keeps the conversation's "
            f"owner from approving, and {listed}. Add an approver (or a group), or turn "
            f"{only_approvers} off."
        )
    return (
        f"Calls to {tool} need {required} different people's approvals, but {only_approvers} "
        f"keeps the conversation's owner from approving and {listed}. Add approvers (or a "
        f"group), or lower {needed}."
    )
