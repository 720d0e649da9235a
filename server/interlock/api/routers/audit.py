"""The audit log: admins see every record, members their own; filters, pages and CSV export."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Query
from fastapi.responses import StreamingResponse

from interlock.api.deps import CurrentUser, EngineDep
from interlock.api.errors import ERROR_RESPONSES
from interlock.audit.query import (
    MAX_PAGE,
    AuditFilter,
    AuditPage,
    audit_page,
    export_csv,
    filter_user,
)
from interlock.engine import Engine
from interlock.errors import BadRequest
from interlock.storage.times import UtcTime

router = APIRouter(prefix="/api/audit", tags=["audit"], responses=ERROR_RESPONSES)

OutcomeParam = Literal[
    "approved",
    "approval",
    "edited",
    "picked",
    "rejected",
    "responded",
    "allowed",
    "expired",
    "cancelled",
    "finished_late",
    "created",
    "revoked",
]


async def _filter(
    engine: Engine,
    tool: str | None,
    employee: str | None,
    user: str | None,
    outcome: str | None,
    since: datetime | None,
    until: datetime | None,
) -> AuditFilter:
    """The filter the query asks for; ``user`` is a user's id or name.

    Raises:
        BadRequest: ``invalid_request`` for a period that ends before it starts,
            ``unknown_user`` for a ``user`` that is no user's id or name.
    """
    if since is not None and until is not None and since >= until:
        raise BadRequest(PERIOD_BACKWARDS, code="invalid_request")
    user_id = await engine.db.run(filter_user, engine.db, user) if user else None
    return AuditFilter(
        tool=tool or None,
        employee=employee or None,
        user=user_id,
        outcome=outcome,
        since=since,
        until=until,
    )


PERIOD_BACKWARDS = "The period must start (From, since) before it ends (Until, until)."
"""Refusal of a ``since`` at or after ``until``, in the Audit page's words and the API's."""

MAX_SEQ = 2**31 - 1
"""Largest audit sequence number: ``seq`` is a 32-bit column (PostgreSQL ``integer``), so a
larger ``before`` would fail the query."""

ToolQ = Annotated[str | None, Query(max_length=200, description="Tool name, e.g. notes.add")]
EmployeeQ = Annotated[str | None, Query(max_length=100, description="Employee slug")]
UserQ = Annotated[
    str | None,
    Query(
        alias="user",
        max_length=200,
        description="A user's id or name: the records they took part in (their conversations, "
        "their decisions and the calls they decided); 422 unknown_user for no such user",
    ),
]
OutcomeQ = Annotated[OutcomeParam | None, Query()]
SinceQ = Annotated[UtcTime | None, Query(description="From this time (inclusive)")]
UntilQ = Annotated[UtcTime | None, Query(description="Before this time (exclusive)")]


@router.get("")
async def list_audit(
    user: CurrentUser,
    engine: EngineDep,
    tool: ToolQ = None,
    employee: EmployeeQ = None,
    by: UserQ = None,
    outcome: OutcomeQ = None,
    since: SinceQ = None,
    until: UntilQ = None,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 50,
    before: Annotated[int | None, Query(ge=1, description="next_before of the last page")] = None,
) -> AuditPage:
    """A page of audit records, newest first (admins: all; members: their own)."""
    flt = await _filter(engine, tool, employee, by, outcome, since, until)
    if before is not None and before > MAX_SEQ:
        before = None  # past every record: the first page, not a 500
    return await engine.db.run(
        audit_page, engine.db, engine.registry, user, flt, limit=limit, before=before
    )


@router.get("/export", response_class=StreamingResponse)
async def export_audit(
    user: CurrentUser,
    engine: EngineDep,
    tool: ToolQ = None,
    employee: EmployeeQ = None,
    by: UserQ = None,
    outcome: OutcomeQ = None,
    since: SinceQ = None,
    until: UntilQ = None,
) -> StreamingResponse:
    """Every matching audit record as CSV, oldest first (same filters and rights as the list)."""
    flt = await _filter(engine, tool, employee, by, outcome, since, until)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return StreamingResponse(
        export_csv(engine.db, engine.registry, user, flt),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="interlock-audit-{stamp}.csv"'},
    )
