"""Why a decision cannot be applied now: the 409 that carries the call's recorded outcome.

Used by :mod:`interlock.engine.decisions` when a call is not interrupted any more, was decided
elsewhere, or is past its deadline.
"""

from __future__ import annotations

import logging
from datetime import datetime

from sqlmodel import select

from interlock.engine.expiry import expire_call
from interlock.engine.records import view
from interlock.engine.runner import Engine
from interlock.engine.tool_texts import as_others_read_it
from interlock.errors import Conflict, NotFound
from interlock.storage import Conversation, Decision, ToolCall, ToolCallStatus, User
from interlock.storage.views import ToolCallOut

log = logging.getLogger(__name__)

_DONE = {"approve": "approved", "edit": "edited and approved", "reject": "rejected"}
"""A recorded decision's type in the refusal's words; ``respond`` is "answered"."""

_AFTER_DECISION = {
    ToolCallStatus.interrupted: " It is about to run.",
    ToolCallStatus.pending: " It is about to run.",
    ToolCallStatus.running: " It is running now.",
    ToolCallStatus.awaiting_client: " It is running in the browser now.",
    ToolCallStatus.succeeded: " It has run.",
}
"""What became of a decided call since, by status (a failed call says its error)."""

_UNDECIDED = {
    ToolCallStatus.pending: "This call is not waiting for a decision yet: it is still being checked.",
    ToolCallStatus.running: "This call is already running: it needed no decision.",
    ToolCallStatus.awaiting_client: "This call is already running in the browser.",
    ToolCallStatus.succeeded: "This call has already run: it needed no decision.",
    ToolCallStatus.rejected: "This call was already turned down, so it did not run.",
}
"""Why a call nobody decided cannot be decided, by status."""


def refusal(
    engine: Engine, tool_call_id: str, now: datetime, viewer_id: str
) -> Conflict | NotFound:
    """The 409 for a call that cannot be decided now, with its recorded outcome.

    Said to ``viewer_id``, who tried to decide: an approver reads what the owner did with the
    owner's name ("Ann turned off AI actions for Ada."), not the owner's "You ...".

    A call past its deadline that no sweep closed yet is closed as ``expired`` here first
    (exactly once, like the sweeper), so a late decision always meets the recorded outcome.
    A call gone meanwhile (its conversation deleted between the decision's read and its
    lock, perhaps by another worker) is the 404 a decision on a deleted conversation gets.
    """
    where = expire_call(engine, tool_call_id, now)
    if where is not None:
        engine.resume_after_close(*where)
    with engine.db.session() as session:
        call = session.get(ToolCall, tool_call_id)
        if call is None:
            log.info("decision refused (not_found): tool call %s deleted meanwhile", tool_call_id)
            return NotFound("No such tool call.")
        decision = session.exec(
            select(Decision).where(Decision.tool_call_id == tool_call_id)
        ).first()
        out = view(session, engine.registry, call, decision)
        conversation = session.get(Conversation, call.conversation_id)
        owner_id = conversation.owner_id if conversation is not None else viewer_id
        if out.error is not None and owner_id != viewer_id:
            owner = session.get(User, owner_id)
            out.error.message = as_others_read_it(
                out.error.code, out.error.message, owner.name if owner else "The owner"
            )
    return not_interrupted(out, decision)


def why_not_waiting(call: ToolCallOut) -> str:
    """Why ``call`` cannot be decided now, in the person's words: it expired (and how many
    approvals arrived), was cancelled (and why), was already decided (by whom, and what came
    of it), already ran or failed.

    Returns:
        ``"Too late: only 1 of 2 approvals arrived in time, so this call expired and did not
        run."``, ``"Too late: this call was cancelled and did not run. You turned off AI
        actions for Ada."``, ``"Already decided: Ann approved this call. It has run."``.
    """
    error = f" {call.error.message}" if call.error and call.error.message else ""
    if call.status == ToolCallStatus.expired:
        given = len(call.approvals)
        if given and call.approvals_required > 1:
            arrived = f"only {given} of {call.approvals_required} approvals arrived in time"
            return f"Too late: {arrived}, so this call expired and did not run."
        return "Too late: nobody decided in time, so this call expired and did not run."
    if call.status == ToolCallStatus.cancelled:
        return f"Too late: this call was cancelled and did not run.{error}"
    decision = call.decision
    if decision is not None:
        done = "answered" if decision.type == "respond" else _DONE[decision.type]
        said = f"Already decided: {decision.user_name} {done} this call."
        if call.status == ToolCallStatus.failed:
            return f"{said} It failed.{error}"
        return said + _AFTER_DECISION.get(ToolCallStatus(call.status), "")
    if call.status == ToolCallStatus.failed:
        return f"This call already ended: it failed.{error}"
    return _UNDECIDED.get(
        ToolCallStatus(call.status), "This tool call is not waiting for a decision."
    )


def not_interrupted(call: ToolCallOut, decision: Decision | None) -> Conflict:
    """The 409 ``not_interrupted`` for ``call``, in words for its status; ``details`` carries
    ``status``, the recorded ``decision`` and the call."""
    log.info(
        "decision refused (not_interrupted): tool call %s is %s, decided %s",
        call.id,
        call.status,
        decision.type if decision else "never",
    )
    return Conflict(
        why_not_waiting(call),
        code="not_interrupted",
        details={
            "status": call.status,
            "decision": call.decision.model_dump(mode="json") if call.decision else None,
            "tool_call": call.model_dump(mode="json"),
        },
    )
