"""The "AI actions" switch, per person and employee.

On means the employee's write tools follow their usual levels; off means they are ``DENY`` for
that person. Being on always has an end (``on_until``, ``INTERLOCK_ACTIONS_GRANT_DAYS`` after it
was turned on); use never extends it, and once it lapses the switch is off until the person
turns it on again. The first message a person sends to an employee starts the first period
(so nothing changes for people who never touch the switch, for those days).

Every time is the server's clock (:func:`~interlock.storage.models.utcnow`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Protocol, cast

from sqlalchemy import bindparam
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from interlock.storage import ActionSwitch, Conversation
from interlock.storage.models import as_utc, utcnow
from interlock.storage.read_soon import Soon, read_soon
from interlock.storage.write_behind import execute


@dataclass(frozen=True)
class SwitchState:
    """Where a switch stands.

    Attributes:
        on: Whether the employee's write tools may run for the person now.
        on_until: When the current period ends (UTC); None when off, or never started.
        changed_by: ``default`` (started by the first message), ``person``, or ``none``.
        changed_at: Last change (UTC); None when never started.
        lapsed_at: When the last period ran out, if it ran out (rather than being turned off).
    """

    on: bool
    on_until: datetime | None
    changed_by: str
    changed_at: datetime | None
    lapsed_at: datetime | None = None


def switch_state(
    session: Session, user_id: str, employee: str, *, now: datetime | None = None
) -> SwitchState:
    """Return the switch of ``user_id`` for ``employee``; never started counts as on."""
    row = _switch_row(session, user_id, employee)
    if row is None:
        return SwitchState(on=True, on_until=None, changed_by="none", changed_at=None)
    return _state(row, now or utcnow())


def actions_on(session: Session, user_id: str, employee: str) -> bool:
    """True when the employee's write tools may run for ``user_id`` now."""
    return switch_state(session, user_id, employee).on


def on_from_columns(
    changed_by: str | None, on_until: datetime | None, now: datetime | None = None
) -> bool:
    """:func:`actions_on` from a switch's columns read by the caller's own query.

    Args:
        changed_by: The switch's ``changed_by``, read through an outer join: None when the
            person has no switch for the employee (never started counts as on).
        on_until: Its ``on_until``.
        now: The time to judge at (default: now).
    """
    if changed_by is None:
        return True
    until = as_utc(on_until) if on_until is not None else None
    return until is not None and (now or utcnow()) < until


def start_switch(
    session: Session, user_id: str, employee: str, *, days: int, read: Soon | None = None
) -> SwitchState:
    """Start the first period (``days`` long) when the switch has never been set; else no-op.

    Runs inside the caller's transaction (flushed, not committed). Of two concurrent
    starts one insert wins; the other reads the winner's row. ``read``: the switch's row as
    the caller queued its read (:func:`read_switch_of`); read here when None.
    """
    if read is not None:
        stored = cast("_SwitchRow | None", read.result().first())
    else:
        stored = _switch_row(session, user_id, employee)
    if stored is not None:
        return _state(stored, utcnow())
    now = utcnow()
    row = ActionSwitch(
        user_id=user_id,
        employee=employee,
        on_until=now + timedelta(days=days),
        changed_by="default",
        changed_at=now,
    )
    try:
        with session.begin_nested():
            session.add(row)
    except IntegrityError:
        found = session.get(ActionSwitch, (user_id, employee), populate_existing=True)
        assert found is not None
        row = found
    return _state(row, utcnow())


def set_switch(
    session: Session, user_id: str, employee: str, *, on: bool, days: int
) -> SwitchState:
    """Turn the switch on (for ``days`` from now) or off. The caller commits.

    Turning it on while on starts a new period of ``days`` from now (a person's explicit
    choice, not use).
    """
    now = utcnow()
    row = session.get(ActionSwitch, (user_id, employee), with_for_update=True)
    if row is None:
        row = ActionSwitch(user_id=user_id, employee=employee)
    row.on_until = now + timedelta(days=days) if on else None
    row.changed_by = "person"
    row.changed_at = now
    session.add(row)
    session.flush()
    return _state(row, now)


class _SwitchRow(Protocol):
    """What :func:`_state` reads of a switch: its row (Core) or its loaded object."""

    @property
    def on_until(self) -> datetime | None: ...

    @property
    def changed_by(self) -> str: ...

    @property
    def changed_at(self) -> datetime: ...


_switches = ActionSwitch.__table__  # type: ignore[attr-defined]
_conversations = Conversation.__table__  # type: ignore[attr-defined]
_SWITCH = select(_switches.c.on_until, _switches.c.changed_by, _switches.c.changed_at).where(
    _switches.c.user_id == bindparam("user_id"), _switches.c.employee == bindparam("employee")
)
"""Prebuilt: read by every model step, tools step, message and decision (a Core select: the
row's three fields, without building an object)."""


_SWITCH_OF_CONVERSATION = select(
    _switches.c.on_until, _switches.c.changed_by, _switches.c.changed_at
).where(
    _switches.c.user_id == bindparam("user_id"),
    _switches.c.employee
    == select(_conversations.c.employee)
    .where(_conversations.c.id == bindparam("conversation_id"))
    .scalar_subquery(),
)
""":data:`_SWITCH` for the employee of a conversation, prebuilt."""


def read_switch_of(session: Session, user_id: str, conversation_id: str) -> Soon:
    """Queue the read of ``user_id``'s switch for the employee of ``conversation_id``, to go
    out with the transaction's next round trip (:mod:`~interlock.storage.read_soon`); for
    :func:`start_switch`."""
    params = {"user_id": user_id, "conversation_id": conversation_id}
    return read_soon(session, _SWITCH_OF_CONVERSATION, params)


def _switch_row(session: Session, user_id: str, employee: str) -> _SwitchRow | None:
    """The switch's stored fields, through :data:`_SWITCH` (built once), or None."""
    row = execute(session, _SWITCH, {"user_id": user_id, "employee": employee})
    return cast("_SwitchRow | None", row.first())


def _state(row: _SwitchRow, now: datetime) -> SwitchState:
    on_until = as_utc(row.on_until) if row.on_until is not None else None
    on = on_from_columns(row.changed_by, row.on_until, now)
    return SwitchState(
        on=on,
        on_until=on_until if on else None,
        changed_by=row.changed_by,
        changed_at=as_utc(row.changed_at),
        lapsed_at=on_until if on_until is not None and not on else None,
    )
