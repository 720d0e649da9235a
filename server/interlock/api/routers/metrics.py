"""Tool metrics per tool and employee over a time window (admins: all; members: their own)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Query

from interlock.api.deps import CurrentUser, EngineDep
from interlock.api.errors import ERROR_RESPONSES
from interlock.api.routers.audit import PERIOD_BACKWARDS
from interlock.audit.metrics import ToolMetricsReport, tool_metrics
from interlock.errors import BadRequest
from interlock.storage.times import UtcTime, earlier_by

router = APIRouter(prefix="/api/metrics", tags=["metrics"], responses=ERROR_RESPONSES)

DEFAULT_WINDOW = timedelta(days=7)
MAX_WINDOW = timedelta(days=366)


@router.get("/tools")
async def get_tool_metrics(
    user: CurrentUser,
    engine: EngineDep,
    since: Annotated[UtcTime | None, Query(description="Default: 7 days before until")] = None,
    until: Annotated[UtcTime | None, Query(description="Default: now")] = None,
) -> ToolMetricsReport:
    """Calls, outcomes and time to decision per tool and employee in ``[since, until)``."""
    end = until or datetime.now(UTC)
    start = since or earlier_by(end, DEFAULT_WINDOW)
    if start >= end:
        raise BadRequest(PERIOD_BACKWARDS, code="invalid_request")
    if end - start > MAX_WINDOW:
        raise BadRequest("The window may span at most 366 days.", code="invalid_request")
    return await engine.db.run(tool_metrics, engine.db, engine.registry, user, start, end)
