"""The approval rule a call gets when it is interrupted, fixed on its row.

Precedence for each part of the rule: the employee's ``tool_approvals[tool]``, then the tool's
own declaration, then (timeout only) the employee's ``approval_timeout_s``, then the server's
``INTERLOCK_APPROVAL_TIMEOUT_S``. The deadline is computed on the server's clock when the call
is interrupted and stored as ``tool_calls.expires_at``; a client's clock never enters it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from interlock.employees import Employee
from interlock.storage import ToolCall
from interlock.tools import Tool


@dataclass(frozen=True)
class ApprovalRule:
    """What one interrupted call needs before it may run.

    Attributes:
        timeout_s: Seconds the call waits for a decision before it expires.
        require_approver: The conversation's owner may not approve; an approver must.
        approvals_required: Distinct people who must approve (1 to 5).
    """

    timeout_s: float
    require_approver: bool
    approvals_required: int


def rule_for(tool: Tool | None, employee: Employee, default_timeout_s: float) -> ApprovalRule:
    """Return the approval rule of a call to ``tool`` in a conversation with ``employee``.

    Args:
        tool: The registered tool (None: a call to an unknown tool, given the defaults).
        employee: The conversation's employee.
        default_timeout_s: The server's ``approval_timeout_s`` setting, in seconds.
    """
    override = employee.tool_approvals.get(tool.name) if tool is not None else None
    timeout_s = (
        (override.timeout_s if override else None)
        or (tool.approval_timeout_s if tool else None)
        or employee.approval_timeout_s
        or default_timeout_s
    )
    require_approver = (
        override.require_approver
        if override is not None and override.require_approver is not None
        else bool(tool.require_approver if tool else False)
    )
    approvals_required = (
        override.approvals_required
        if override is not None and override.approvals_required is not None
        else (tool.approvals_required if tool else 1)
    )
    return ApprovalRule(
        timeout_s=float(timeout_s),
        require_approver=require_approver,
        approvals_required=approvals_required,
    )


def apply_rule(call: ToolCall, rule: ApprovalRule, now: datetime) -> None:
    """Write ``rule`` onto ``call`` as it becomes ``interrupted``; ``now`` is the server clock."""
    call.expires_at = now + timedelta(seconds=rule.timeout_s)
    call.require_approver = rule.require_approver
    call.approvals_required = rule.approvals_required
