"""Per tool and employee figures over a time window, from the tool calls and the audit log.

* ``calls``: tool calls proposed in the window (any outcome, also failed checks);
* ``approved`` / ``edited`` / ``picked`` / ``rejected`` / ``responded`` / ``expired`` /
  ``cancelled`` / ``finished_late``: audit records with that outcome (``rejected`` counts the
  loop guard's too; ``picked``: one of a choice card's options clicked, not an edit;
  ``finished_late``: a call stopped or timed out while its tool ran, whose tool returned after
  all; a stopped one is also counted ``cancelled``, as it was closed);
* ``auto_allowed``: run without a card because the tool is ``ALLOW``;
* ``auto_allowed_by_grant``: run without a card because of a remembered approval;
* ``median_decision_ms`` / ``p95_decision_ms``: time from proposal to a person's decision
  (approve, edit, pick, reject, respond by a person; policies excluded), nearest-rank p95; None
  without decisions.

Admins see everyone's figures; members those of their own conversations.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from datetime import datetime

from pydantic import BaseModel
from sqlalchemy import select as sa_select
from sqlmodel import col, func, select

from interlock.audit.chain import ALLOW_DECIDER, SYSTEM_DECIDER, TIMEOUT_DECIDER, Kind, Outcome
from interlock.storage import AuditRecord, Conversation, Database, Role, ToolCall, User
from interlock.tools import ToolRegistry

_COUNTED = (
    "approved",
    "edited",
    "picked",
    "rejected",
    "responded",
    "expired",
    "cancelled",
    "finished_late",
)
_PERSON_DECISIONS = {
    Outcome.approved,
    Outcome.edited,
    Outcome.picked,
    Outcome.rejected,
    Outcome.responded,
}


class ToolMetrics(BaseModel):
    """Figures of one tool for one employee over the window."""

    tool: str
    title: str
    employee: str
    calls: int = 0
    approved: int = 0
    edited: int = 0
    picked: int = 0
    rejected: int = 0
    responded: int = 0
    expired: int = 0
    cancelled: int = 0
    finished_late: int = 0
    auto_allowed: int = 0
    auto_allowed_by_grant: int = 0
    median_decision_ms: float | None = None
    p95_decision_ms: int | None = None


class ToolMetricsReport(BaseModel):
    """The window (``since`` inclusive, ``until`` exclusive) and one row per tool and employee."""

    since: datetime
    until: datetime
    tools: list[ToolMetrics]


def tool_metrics(
    db: Database, registry: ToolRegistry, viewer: User, since: datetime, until: datetime
) -> ToolMetricsReport:
    """Compute the figures of every tool and employee with activity in ``[since, until)``.

    Rows are sorted by calls (most first), then tool and employee.
    """
    rows: dict[tuple[str, str], ToolMetrics] = {}
    waits: dict[tuple[str, str], list[int]] = defaultdict(list)

    def row(tool: str, employee: str) -> ToolMetrics:
        key = (tool, employee)
        if key not in rows:
            known = registry.get(tool)
            rows[key] = ToolMetrics(
                tool=tool, title=known.title if known else tool, employee=employee
            )
        return rows[key]

    with db.session() as session:
        calls = (
            select(ToolCall.name, Conversation.employee, func.count())
            .join(Conversation, col(Conversation.id) == col(ToolCall.conversation_id))
            .where(col(ToolCall.created_at) >= since, col(ToolCall.created_at) < until)
            .group_by(col(ToolCall.name), col(Conversation.employee))
        )
        if viewer.role != Role.admin:
            calls = calls.where(Conversation.owner_id == viewer.id)
        for tool, employee, count in session.exec(calls).all():
            row(tool, employee).calls = int(count)

        records = sa_select(
            col(AuditRecord.tool),
            col(AuditRecord.employee),
            col(AuditRecord.outcome),
            col(AuditRecord.decider),
            col(AuditRecord.waited_ms),
        ).where(
            col(AuditRecord.created_at) >= since,
            col(AuditRecord.created_at) < until,
            col(AuditRecord.kind) == Kind.tool_call,  # not the token records
        )
        if viewer.role != Role.admin:
            records = records.where(col(AuditRecord.owner_id) == viewer.id)
        for tool, employee, outcome, decider, waited_ms in session.execute(records).all():
            target = row(tool, employee)
            if outcome in _COUNTED:
                setattr(target, outcome, getattr(target, outcome) + 1)
            elif outcome == Outcome.allowed:
                if decider == ALLOW_DECIDER:
                    target.auto_allowed += 1
                else:
                    target.auto_allowed_by_grant += 1
            if outcome in _PERSON_DECISIONS and not _is_policy(decider):
                waits[(tool, employee)].append(int(waited_ms))

    for key, values in waits.items():
        ordered = sorted(values)
        rows[key].median_decision_ms = float(statistics.median(ordered))
        rows[key].p95_decision_ms = ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]
    return ToolMetricsReport(
        since=since,
        until=until,
        tools=sorted(rows.values(), key=lambda m: (-m.calls, m.tool, m.employee)),
    )


def _is_policy(decider: str) -> bool:
    return decider.startswith("policy:") or decider in (TIMEOUT_DECIDER, SYSTEM_DECIDER)
