"""A call that ran, closed with its outcome in one round trip (PostgreSQL).

:func:`close_running` is :func:`~interlock.engine.records.close_call` for the tool step's
result: the call is closed only if it is still ``running`` (a compare-and-set whose row comes
back), with the conversation's sequence held and the tool message inserted in the same round
trip (unless the call has one: closed meanwhile by a cancel, with its own); the events go out
with the ``COMMIT``. Reading the call first, as before, cost a round trip of its own.
"""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy.sql import Executable
from sqlmodel import Session

from interlock.engine.records import (
    UNLOADED,
    closing_changes,
    stage_completed,
    tool_message_row,
)
from interlock.storage import Decision, Message, ToolCall, ToolCallStatus
from interlock.storage.call_rows import CallValues
from interlock.storage.rows import insert_statement, new_row_insert, set_key
from interlock.storage.statements import connection_of
from interlock.storage.write_behind import send
from interlock.streaming import EventBus
from interlock.tools import ToolRegistry

__all__ = ["close_running"]

_tool_calls = ToolCall.__table__  # type: ignore[attr-defined]
_CLOSE_RUNNING = (
    update(_tool_calls)
    .where(
        _tool_calls.c.id == bindparam("call_id"),
        _tool_calls.c.status == str(ToolCallStatus.running),
    )
    .returning(*_tool_calls.c)
)
"""A running call's close, prebuilt; the parameters other than ``call_id`` name the columns
set; the row as closed comes back."""
_messages = Message.__table__  # type: ignore[attr-defined]


@functools.cache
def _message_once(dialect: str) -> Executable:
    """The tool message's insert for ``dialect`` (``postgresql`` or ``sqlite``): nothing when
    the call has one already (a call closed meanwhile has its own; a call has one tool
    message), as it goes out before it is known whether the close matched. Built at first use:
    importing the other dialect's module would cost every start."""
    if dialect == "postgresql":
        from sqlalchemy.dialects import postgresql

        return postgresql.insert(_messages).on_conflict_do_nothing()
    from sqlalchemy.dialects import sqlite

    return sqlite.insert(_messages).on_conflict_do_nothing()


def close_running(
    session: Session,
    bus: EventBus,
    registry: ToolRegistry,
    call: ToolCall | CallValues,
    run_id: str,
    *,
    status: ToolCallStatus,
    text: str,
    result_data: Any = None,
    error_code: str | None = None,
    error_message: str | None = None,
    full_text: str | None = None,
    decision: Decision | object | None = UNLOADED,
    decided_by: str | object | None = UNLOADED,
) -> bool:
    """:func:`~interlock.engine.records.close_call` for a call that ran, only if it is still ``running``, in one round
    trip: the compare-and-set ``UPDATE`` of the row (locked first, as a bump locks), the
    conversation's sequence held, the full output and the tool message inserted.

    ``call`` gives the call's id, conversation and name (its other values are read back with
    the update). The columns a running call has null (``result_data``, the error's) are
    written only when given, as ``close_call`` writes only what changes.

    Returns:
        True when closed (the caller commits with ``bus.commit(session)``); False when the
        call was no longer running (cancelled meanwhile; its tool message is the closer's):
        the caller rolls back (the sequence was held, a cut output may have been written).

    Raises:
        RuntimeError: The running call had a tool message already (never: one per close).
    """
    changes, output = closing_changes(
        call, status, text, result_data, error_code, error_message, full_text
    )
    tool_message = tool_message_row(call, run_id, status, text)
    setting = {key: value for key, value in changes.items() if value is not None}
    # The sequence held on PostgreSQL only: on SQLite the bump costs no round trip.
    dialect = connection_of(session).dialect.name
    hold = dialect == "postgresql"
    sent = send(
        session,
        (_CLOSE_RUNNING, {"call_id": call.id, **setting}),
        *([bus.hold_seq(call.conversation_id)] if hold else []),
        *[insert_statement(row) for row in output],
        (_message_once(dialect), new_row_insert(tool_message)[1]),
    )
    closed = sent[0].first()
    if closed is None:  # closed meanwhile, with its own tool message: nothing was inserted
        return False
    if sent[-1].rowcount != 1:
        raise RuntimeError(f"tool call {call.id} was running with a tool message already")
    if hold:
        bus.held(session, call.conversation_id, sent[1])
    set_key(tool_message, sent[-1])
    fresh = CallValues(closed._asdict())
    stage_completed(session, bus, registry, fresh, tool_message, run_id, decision, decided_by)
    return True
