"""Undo and redo of one tool call's changes to the store, each in one transaction.

Undo puts back every key the call touched as it was before the call's first write; redo puts
back the call's last writes. Both refuse with 409 ``undo_conflict`` when a later call changed
one of those keys since (the answer names the keys and the calls), because restoring would
silently throw that call's work away.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, update
from sqlmodel import Session, col, select

from interlock.errors import Conflict, NotFound
from interlock.storage import (
    Conversation,
    Database,
    StoreChange,
    StoreEntry,
    ToolCall,
    ToolCallStatus,
)
from interlock.storage.models import utcnow
from interlock.storage.read_soon import Soon, read_soon
from interlock.storage.write_behind import execute
from interlock.store.tool_store import UNDO_AVAILABLE, UNDO_UNDONE
from interlock.tools import ToolRegistry


@dataclass(frozen=True)
class _Step:
    change: StoreChange
    entry: StoreEntry


def undo_call(db: Database, registry: ToolRegistry, user_id: str, tool_call_id: str) -> ToolCall:
    """Restore what call ``tool_call_id`` changed to its state before the call.

    Returns:
        The call, now ``undo_state == "undone"``.

    Raises:
        NotFound: Unknown call, or not in one of the caller's conversations.
        Conflict: ``not_undoable`` (a read, a call not run or whose outcome is not known, or one
            that changed nothing), ``already_undone``,
            or ``undo_conflict`` with ``details.conflicts`` naming keys changed later.
    """
    with db.session() as session:
        call = _owned_call(session, user_id, tool_call_id)
        if call.undo_state is None:
            raise _not_undoable(call, registry)
        if call.undo_state == UNDO_UNDONE or not _turn(session, call, UNDO_AVAILABLE, UNDO_UNDONE):
            raise Conflict(
                f"{_title(call, registry)} was already undone; redo it first to undo it again.",
                code="already_undone",
            )
        steps = _steps(session, call.id)
        _refuse_if_changed(session, registry, [(s, s.change.id) for s in steps], "undo")
        _restore(session, steps, after=False)
        call.undo_state = UNDO_UNDONE
        call.undone_at = utcnow()
        session.add(call)
        session.commit()
        return call


def redo_call(db: Database, registry: ToolRegistry, user_id: str, tool_call_id: str) -> ToolCall:
    """Apply again what an undone call ``tool_call_id`` had changed.

    Returns:
        The call, ``undo_state == "available"`` again.

    Raises:
        NotFound: Unknown call, or not in one of the caller's conversations.
        Conflict: ``not_undone`` when the call is not undone (or changed nothing), or
            ``undo_conflict`` with ``details.conflicts`` naming keys changed since the undo.
    """
    with db.session() as session:
        call = _owned_call(session, user_id, tool_call_id)
        if call.undo_state != UNDO_UNDONE or not _turn(session, call, UNDO_UNDONE, UNDO_AVAILABLE):
            raise Conflict(
                f"{_title(call, registry)} is not undone; there is nothing to redo.",
                code="not_undone",
            )
        steps = _steps(session, call.id)
        _refuse_if_changed(session, registry, [(s, s.change.prev_change_id) for s in steps], "redo")
        _restore(session, steps, after=True)
        call.undo_state = UNDO_AVAILABLE
        call.undone_at = None
        session.add(call)
        session.commit()
        return call


_calls = ToolCall.__table__  # type: ignore[attr-defined]
_UNDONE_CALLS = (
    select(_calls.c.id, _calls.c.name)
    .where(_calls.c.conversation_id == bindparam("cid"), _calls.c.undo_state == UNDO_UNDONE)
    .order_by(_calls.c.undone_at)
)
"""Prebuilt (read on every model step): building a statement costs more than running it; a
Core select of the two columns the note shows (usually no row: no ORM query for nothing)."""


def read_undone_calls(session: Session, conversation_id: str) -> Soon:
    """The read :func:`undone_calls_note` needs, queued to go out with the transaction's next
    round trip (:mod:`~interlock.storage.read_soon`)."""
    return read_soon(session, _UNDONE_CALLS, {"cid": conversation_id})


def undone_calls_note(
    session: Session, registry: ToolRegistry, conversation_id: str, undone: Soon | None = None
) -> str:
    """Return the system prompt section listing the conversation's undone calls ("" for none).

    The model reads it on every step, so from its next turn on it knows the changes are gone
    even though the calls' tool messages still report them. ``undone``: its read, queued by
    the caller (:func:`read_undone_calls`); made here when None.
    """
    calls = (undone or read_undone_calls(session, conversation_id)).result().rows
    if not calls:
        return ""
    lines = []
    for call in calls:
        labels = [
            change.label
            for change in session.exec(
                select(StoreChange)
                .where(StoreChange.tool_call_id == call.id)
                .order_by(col(StoreChange.id))
            ).all()
            if change.label
        ]
        what = f": {'; '.join(labels)}" if labels else ""
        lines.append(f"- {_title_of(call.name, registry)} (tool call {call.id}){what}")
    return (
        "\n\n## Undone by the person\n"
        "The person undid these tool calls after they ran; their changes were reverted and are "
        "no longer in effect, whatever the calls' results say. Do not redo them unless the "
        "person asks.\n" + "\n".join(lines)
    )


_TURN = (
    update(_calls)
    .where(_calls.c.id == bindparam("call_id"), _calls.c.undo_state == bindparam("was"))
    .values(undo_state=bindparam("now_state"))
)
"""The undo state's compare-and-set, the transaction's first write: of two undos (or redos)
of one call at once exactly one goes on (SQLite: it takes the write lock, so what follows reads
the latest rows; PostgreSQL: it locks the call's row)."""


def _turn(session: Session, call: ToolCall, was: str, now_state: str) -> bool:
    """Move the call's ``undo_state`` from ``was`` to ``now_state``; False if it was not ``was``
    any more (another undo or redo of it committed first).

    Raises:
        NotFound: The call is gone: its conversation was deleted after the call was read
            (PostgreSQL: another thread or worker), which is not an undo or redo done first.
    """
    moved = execute(session, _TURN, {"call_id": call.id, "was": was, "now_state": now_state})
    if moved.rowcount == 1:
        return True
    if session.exec(select(ToolCall.id).where(ToolCall.id == call.id)).first() is None:
        raise NotFound("No such tool call.")
    return False


def _owned_call(session: Session, user_id: str, tool_call_id: str) -> ToolCall:
    call = session.get(ToolCall, tool_call_id)
    conversation = session.get(Conversation, call.conversation_id) if call else None
    if call is None or conversation is None or conversation.owner_id != user_id:
        raise NotFound("No such tool call.")
    return call


_NOT_RUN_YET = {ToolCallStatus.pending, ToolCallStatus.interrupted, ToolCallStatus.awaiting_client}
_NEVER_RAN = {ToolCallStatus.rejected, ToolCallStatus.cancelled, ToolCallStatus.expired}


def _not_undoable(call: ToolCall, registry: ToolRegistry) -> Conflict:
    """``not_undoable``, saying why in words: a read, a call that has not run (yet), one whose
    outcome is not known (``outcome_unknown``: stopped while its tool ran, or a write whose
    answer was lost; it may have happened), or one that ran and changed nothing."""
    tool = registry.get(call.name)
    title = _title(call, registry)
    if tool is not None and not tool.write:
        message = f"{title} only reads; there is nothing to undo."
    elif call.status in _NOT_RUN_YET:
        message = f"{title} has not run yet; there is nothing to undo."
    elif call.status == ToolCallStatus.running:
        message = f"{title} is still running; undo it once it is done."
    elif call.status in _NEVER_RAN:
        message = f"{title} did not run; there is nothing to undo."
    elif call.error_code == "outcome_unknown":
        message = (
            f"{title} may or may not have happened: it did not finish, and it recorded no "
            "change that can be undone here. Check whether it took effect; if it did, reverse "
            "it yourself or ask the employee to."
        )
    else:
        message = f"{title} changed nothing that can be undone."
    return Conflict(message, code="not_undoable")


def _title(call: ToolCall, registry: ToolRegistry) -> str:
    return _title_of(call.name, registry)


def _title_of(name: str, registry: ToolRegistry) -> str:
    tool = registry.get(name)
    return f"“{tool.title if tool else name}”"


def _restore(session: Session, steps: list[_Step], *, after: bool) -> None:
    """Put each touched key back to its value before the call (undo) or after it (redo)."""
    for step in steps:
        change = step.change
        step.entry.value = change.after if after else change.before
        step.entry.present = change.present_after if after else change.present_before
        step.entry.last_change_id = change.id if after else change.prev_change_id
        step.entry.updated_at = utcnow()
        session.add(step.entry)


def _steps(session: Session, tool_call_id: str) -> list[_Step]:
    changes = session.exec(
        select(StoreChange)
        .where(StoreChange.tool_call_id == tool_call_id)
        .order_by(col(StoreChange.id))
    ).all()
    steps: list[_Step] = []
    for change in changes:
        entry = session.exec(
            select(StoreEntry).where(StoreEntry.id == change.entry_id).with_for_update()
        ).one()
        steps.append(_Step(change, entry))
    return steps


def _refuse_if_changed(
    session: Session,
    registry: ToolRegistry,
    expected: list[tuple[_Step, int | None]],
    verb: str,
) -> None:
    """Raise ``undo_conflict`` when an entry no longer holds the state ``verb`` starts from."""
    conflicts: list[dict[str, str]] = []
    for step, wanted in expected:
        if step.entry.last_change_id == wanted:
            continue
        later = (
            session.get(StoreChange, step.entry.last_change_id)
            if step.entry.last_change_id
            else None
        )
        later_call = session.get(ToolCall, later.tool_call_id) if later else None
        label = step.change.label or f"{step.entry.namespace} {step.entry.key}"
        conflicts.append(
            {
                "key": f"{step.entry.namespace}/{step.entry.key}",
                "label": label,
                "tool_call_id": later_call.id if later_call else "",
                "title": _title(later_call, registry).strip("“”") if later_call else "",
            }
        )
    if not conflicts:
        return
    parts = [
        f"{c['label']} was changed later by {('“' + c['title'] + '”') if c['title'] else 'another call'}"
        for c in conflicts
    ]
    raise Conflict(
        f"Cannot {verb}: {'; '.join(parts)}. Undo that call first.",
        code="undo_conflict",
        details={"conflicts": conflicts},
    )
