"""Writes that close tool calls, shared by the graph, decisions, cancellation and recovery.

A call is closed in one transaction: its final status and result, its one tool message, and
the ``tool_call.completed`` event. The tool message texts, the contract with the model, are
in :mod:`~interlock.engine.tool_texts`.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, bindparam, or_
from sqlalchemy.sql.elements import ColumnElement
from sqlmodel import Session, col, select

from interlock.storage import (
    Decision,
    Message,
    MessageRole,
    ToolCall,
    ToolCallApproval,
    ToolCallStatus,
    ToolOutput,
    User,
)
from interlock.storage.call_rows import CallValues, update_call
from interlock.storage.models import utcnow
from interlock.storage.rows import insert_rows, new_row
from interlock.storage.views import (
    ToolCallApprovalOut,
    ToolCallOut,
    ToolFacts,
    message_out,
    tool_call_out,
)
from interlock.storage.write_behind import execute
from interlock.streaming import EventBus
from interlock.streaming.events import ToolCallCompleted
from interlock.tools import ToolRegistry

OPEN_STATUSES = (
    ToolCallStatus.pending,
    ToolCallStatus.interrupted,
    ToolCallStatus.running,
    ToolCallStatus.awaiting_client,
)


UNLOADED: object = object()
"""Default of a call's decision argument: not loaded yet (read it)."""
_UNLOADED = UNLOADED

_DECISION_OF_CALL = select(Decision).where(Decision.tool_call_id == bindparam("call_id"))
"""A call's decision, prebuilt (read by every :func:`view` not given the decision)."""

_USER_NAME = select(User.__table__.c.name).where(  # type: ignore[attr-defined]
    User.__table__.c.id == bindparam("user_id")  # type: ignore[attr-defined]
)
"""A person's name, prebuilt (a Core select of one column: a decided call's view names its
decider)."""


def view(
    session: Session,
    registry: ToolRegistry,
    call: ToolCall | CallValues,
    decision: Decision | object | None = _UNLOADED,
    approvals: list[ToolCallApprovalOut] | None = None,
    decided_by: str | object | None = _UNLOADED,
) -> ToolCallOut:
    """Return the wire shape of ``call`` with its decision, approvals, title and card hint.

    Args:
        session: Open session, used to load the decision unless ``decision`` is given, and
            the approvals of a call needing several unless ``approvals`` is given.
        registry: Tool registry (titles and card hints).
        call: The tool call row (an object, or its values read with Core).
        decision: The call's decision if already loaded (``None`` for none).
        approvals: The call's approvals if already loaded.
        decided_by: The decider's name if already read (``None``: no such person).
    """
    if decision is _UNLOADED:
        decision = session.exec(_DECISION_OF_CALL, params={"call_id": call.id}).first()
    assert decision is None or isinstance(decision, Decision)
    if decision is None:
        decided_by = None
    elif decided_by is _UNLOADED:
        name = execute(session, _USER_NAME, {"user_id": decision.user_id}).scalar()
        decided_by = None if name is None else str(name)
    assert decided_by is None or isinstance(decided_by, str)
    if approvals is None and call.approvals_required > 1:
        approvals = approvals_of(session, [call.id]).get(call.id, [])
    return tool_call_out(
        call,
        decision,
        tool_facts(registry, call.name),
        decided_by=decided_by,
        approvals=approvals,
    )


def tool_facts(registry: ToolRegistry, name: str) -> ToolFacts:
    """What the wire shape of a call of ``name`` takes from the tool (defaults when unknown)."""
    tool = registry.get(name)
    if tool is None:
        return ToolFacts()
    return ToolFacts(
        title=tool.title,
        card=tool.card,
        write=tool.write,
        destructive=tool.annotations.destructive is True,
        execution=tool.execution,
        modal=tool.modal,
    )


def approvals_of(
    session: Session, tool_call_ids: list[str]
) -> dict[str, list[ToolCallApprovalOut]]:
    """Return the approvals given so far, by call id, oldest first, with the approvers' names."""
    if not tool_call_ids:
        return {}
    rows = session.exec(
        select(ToolCallApproval, User.name)
        .join(User, col(User.id) == col(ToolCallApproval.user_id), isouter=True)
        .where(col(ToolCallApproval.tool_call_id).in_(tool_call_ids))
        .order_by(col(ToolCallApproval.id))
    ).all()
    out: dict[str, list[ToolCallApprovalOut]] = {}
    for approval, name in rows:
        out.setdefault(approval.tool_call_id, []).append(
            ToolCallApprovalOut(
                user_id=approval.user_id,
                user_name=name or approval.user_id,
                created_at=approval.created_at,
            )
        )
    return out


def close_call(
    session: Session,
    bus: EventBus,
    registry: ToolRegistry,
    call: ToolCall | CallValues,
    *,
    status: ToolCallStatus,
    text: str,
    result_data: Any = None,
    error_code: str | None = None,
    error_message: str | None = None,
    run_id: str | None = None,
    full_text: str | None = None,
    decision: Decision | object | None = _UNLOADED,
    decided_by: str | object | None = _UNLOADED,
) -> None:
    """Stage the end of ``call``: final fields, its tool message and ``tool_call.completed``.

    ``run_id`` is the run doing this (the call's own run when omitted); the tool message and
    the event carry it. ``full_text`` is the whole output when ``text`` was cut: it is stored
    in ``tool_outputs`` and ``result_chars`` gives its length. ``decision``: the call's
    decision when the caller has it (``None`` for none; read when omitted); ``decided_by``:
    its decider's name when the caller has it (read when omitted). ``call`` read as
    :class:`~interlock.storage.call_rows.CallValues` is updated with a Core ``UPDATE`` (no
    object loaded or flushed). The caller commits with ``bus.commit(session)``.
    """
    run_id = run_id or call.run_id
    changes, output = closing_changes(
        call, status, text, result_data, error_code, error_message, full_text
    )
    if isinstance(call, CallValues):
        update_call(session, call, changes)
        # With the call's update (locked first, as a bump locks), the message's insert below
        bus.hold_soon(session, call.conversation_id)
    else:
        for key, value in changes.items():
            setattr(call, key, value)
        session.add_all([*output, call])
        output = []
    tool_message = tool_message_row(call, run_id, status, text)
    insert_rows(session, [*output, tool_message])
    session.flush()
    stage_completed(session, bus, registry, call, tool_message, run_id, decision, decided_by)


def closing_changes(
    call: ToolCall | CallValues,
    status: ToolCallStatus,
    text: str,
    result_data: Any,
    error_code: str | None,
    error_message: str | None,
    full_text: str | None,
) -> tuple[dict[str, Any], list[ToolOutput]]:
    """The columns a close sets (name -> value), and the full output's row when cut."""
    changes: dict[str, Any] = {"status": status}
    output: list[ToolOutput] = []
    if status == ToolCallStatus.succeeded:
        changes["result_text"] = text
        changes["result_chars"] = len(full_text) if full_text is not None else len(text)
        changes["result_cut"] = full_text is not None
        if full_text is not None:
            output.append(
                ToolOutput(
                    tool_call_id=call.id, conversation_id=call.conversation_id, text=full_text
                )
            )
    changes["result_data"] = result_data
    changes["error_code"] = error_code
    changes["error_message"] = error_message
    changes["finished_at"] = utcnow()
    return changes, output


def tool_message_row(
    call: ToolCall | CallValues, run_id: str, status: ToolCallStatus, text: str
) -> Message:
    """The tool message closing ``call`` (a new row, not inserted yet)."""
    return new_row(
        Message,
        conversation_id=call.conversation_id,
        run_id=run_id,
        role=MessageRole.tool,
        content=text,
        tool_call_id=call.id,
        tool_status="success" if status == ToolCallStatus.succeeded else "error",
    )


def stage_completed(
    session: Session,
    bus: EventBus,
    registry: ToolRegistry,
    call: ToolCall | CallValues,
    tool_message: Message,
    run_id: str,
    decision: Decision | object | None,
    decided_by: str | object | None,
) -> None:
    """Stage ``tool_call.completed`` of the closed ``call`` with its inserted tool message."""
    call_view = view(session, registry, call, decision, decided_by=decided_by)
    message_view = message_out(tool_message)
    if call_view.result_text == message_view.content:
        # The same (possibly 60,000-character) text is in the call: not sent twice.
        message_view.content = ""
    bus.stage(
        session,
        call.conversation_id,
        ToolCallCompleted(run_id=run_id, tool_call=call_view, message=message_view),
    )


def waiting_for_person(calls: Any = ToolCall, decisions: Any = Decision) -> ColumnElement[bool]:
    """SQL condition on ``ToolCall`` outer-joined with ``Decision``: the call waits for its
    person (``interrupted`` without a decision, or ``awaiting_client``).

    Args:
        calls: ``ToolCall``, or an alias of it.
        decisions: ``Decision``, or an alias of it.
    """
    return or_(
        and_(col(calls.status) == ToolCallStatus.interrupted, col(decisions.id).is_(None)),
        col(calls.status) == ToolCallStatus.awaiting_client,
    )


def waiting_for_owner(calls: Any = ToolCall, decisions: Any = Decision) -> ColumnElement[bool]:
    """SQL condition as :func:`waiting_for_person`, less a call needing an approver: that one
    waits for the approvers, its owner may only reject it (``ToolCallOut.waiting_for``)."""
    return and_(
        waiting_for_person(calls, decisions),
        or_(
            col(calls.status) == ToolCallStatus.awaiting_client,
            col(calls.require_approver).is_(False),
        ),
    )


LATEST_ASSISTANT = (
    select(Message.id)
    .where(Message.conversation_id == bindparam("cid"), Message.role == MessageRole.assistant)
    .order_by(col(Message.id).desc())
    .limit(1)
)
_CALLS_OF_LATEST_ASSISTANT = (
    select(ToolCall)
    .where(ToolCall.message_id == LATEST_ASSISTANT.scalar_subquery())
    .order_by(col(ToolCall.index))
)


def latest_assistant_calls(session: Session, conversation_id: str) -> list[ToolCall]:
    """Return the tool calls of the conversation's latest assistant message, in call order.

    One prebuilt statement (read on every tools step); none without an assistant message.
    """
    return list(session.exec(_CALLS_OF_LATEST_ASSISTANT, params={"cid": conversation_id}).all())
