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
from interlock.errors import Conflict, NotFound
from interlock.storage import Decision, ToolCall, ToolCallStatus
from interlock.storage.views import ToolCallOut

log = logging.getLogger(__name__)


def refusal(engine: Engine, tool_call_id: str, now: datetime) -> Conflict | NotFound:
    """The 409 for a call that cannot be decided now, with its recorded outcome.

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
    return not_interrupted(out, decision)


def not_interrupted(call: ToolCallOut, decision: Decision | None) -> Conflict:
    """The 409 ``not_interrupted`` for ``call``, in words for its status; ``details`` carries
    ``status``, the recorded ``decision`` and the call."""
    log.info(
        "decision refused (not_interrupted): tool call %s is %s, decided %s",
        call.id,
        call.status,
        decision.type if decision else "never",
    )
    if call.status == ToolCallStatus.expired:
        message = "Too late: nobody decided in time, so this call expired and did not run."
    elif call.status == ToolCallStatus.cancelled and call.error and call.client_name:
        message = f"Too late: this call was closed. {call.error.message}"
    else:
        message = "This tool call is not waiting for a decision."
    return Conflict(
        message,
        code="not_interrupted",
        details={
            "status": call.status,
            "decision": call.decision.model_dump(mode="json") if call.decision else None,
            "tool_call": call.model_dump(mode="json"),
        },
    )
