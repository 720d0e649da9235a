"""What time input accepts: a moment that has a UTC form.

A time the API reads (a query's ``since``, a grant's ``expires_at``) is compared with stored
UTC times, so it is turned into UTC first; one near the ends of the calendar with a zone
(``9999-12-31T23:59-05:00``, ``0001-01-01T00:00+01:00``) has no UTC form and is refused as
invalid input instead of failing the request.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated

from pydantic import AfterValidator, Strict

EARLIEST = datetime.min.replace(tzinfo=UTC)


def to_utc(value: datetime) -> datetime:
    """Return ``value`` as aware UTC; a time without a zone is read as UTC.

    Raises:
        ValueError: The time has no UTC form (it would fall before year 1 or after 9999).
    """
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ValueError("the time is outside the years 1 to 9999 once in UTC") from None


def earlier_by(value: datetime, span: timedelta) -> datetime:
    """Return ``value - span``, or the earliest time there is when that falls before it."""
    return value - span if value - EARLIEST > span else EARLIEST


UtcTime = Annotated[datetime, Strict(False), AfterValidator(to_utc)]
"""A request's time, validated into aware UTC (422 when it has no UTC form). JSON carries a
time as text, so it is read from an ISO 8601 string even in a strict request body."""
