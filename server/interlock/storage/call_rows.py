"""A tool call's row read with a prebuilt Core select (the hot paths' ``ToolCall`` loads).

Loading a ``ToolCall`` object (and flushing its changes through the unit of work) costs more
CPU than the database does for the row. Where a step only reads a call's columns and writes
a few of them, :func:`call_values` reads the row as plain values (the same Python values the
ORM loads: naive datetimes on SQLite, decoded JSON) and :func:`update_call` writes the changes
with a Core ``UPDATE``, both compiled once (:mod:`~interlock.storage.compiled`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, select, update
from sqlmodel import Session

from interlock.storage.models import ToolCall
from interlock.storage.write_behind import defer, execute

_tool_calls = ToolCall.__table__  # type: ignore[attr-defined]
_CALL_BY_ID = select(_tool_calls).where(_tool_calls.c.id == bindparam("call_id"))
"""A call's whole row, prebuilt."""
_COLUMNS = tuple(column.key for column in _tool_calls.c)
_UPDATE_CALL = update(_tool_calls).where(_tool_calls.c.id == bindparam("call_id"))
"""A call's UPDATE, prebuilt; the parameters other than ``call_id`` name the columns set."""


class CallValues:
    """The column values of one ``tool_calls`` row, as attributes named like ``ToolCall``'s.

    Read by :func:`interlock.storage.views.tool_call_out` like a ``ToolCall``; not in any
    session (changing an attribute writes nothing).
    """

    id: str
    conversation_id: str
    message_id: int
    run_id: str
    index: int
    name: str
    permission: str
    proposed_args: Any
    raw_args: str | None
    executed_args: Any
    status: str
    result_text: str | None
    result_data: Any
    error_code: str | None
    error_message: str | None
    confirmation: Any
    result_chars: int | None
    result_cut: bool
    grant_id: str | None
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    expires_at: datetime | None
    approvals_required: int
    require_approver: bool
    decided_at: datetime | None
    undo_state: str | None
    undone_at: datetime | None
    finished_late_at: datetime | None
    finished_late_after: str | None
    client_name: str | None
    mcp_session: str | None

    def __init__(self, values: dict[str, Any]) -> None:
        """Args: values: Every column of the row, by column name."""
        self.__dict__.update(values)


def call_values(session: Session, call_id: str) -> CallValues | None:
    """Return the row of call ``call_id`` as :class:`CallValues` (as the transaction sees it),
    or None when there is none."""
    rows = execute(session, _CALL_BY_ID, {"call_id": call_id}).rows
    return CallValues(dict(zip(_COLUMNS, rows[0], strict=True))) if rows else None


def update_call(session: Session, call: CallValues, changes: dict[str, Any]) -> None:
    """Write ``changes`` (column name -> value) to ``call``'s row and to ``call`` itself.

    As the unit of work does for a loaded ``ToolCall``, only the values that differ from
    ``call``'s are written (a ``None`` JSON value left as it is stays SQL NULL, not JSON
    ``null``); nothing is written when none differ. On PostgreSQL the ``UPDATE`` goes out
    with the transaction's next round trip (:func:`~interlock.storage.write_behind.defer`). ``call`` holds every value given, as a
    ``ToolCall`` does after its attributes are set.
    """
    changed = {key: value for key, value in changes.items() if getattr(call, key) != value}
    call.__dict__.update(changes)
    if changed:  # sent with the transaction's next round trip (storage.write_behind)
        defer(session, _UPDATE_CALL, {"call_id": call.id, **changed})
