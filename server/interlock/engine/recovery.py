"""Start-up repair of runs that were active when the server stopped.

Calls caught ``running`` are failed (never re-run: their outcome is unknown, so an approved
call executes at most once); calls never started are failed too; ``interrupted`` calls stay
open, so a pause survives a restart, and so do ``awaiting_client`` calls (a frontend call's
result may still come from the browser). Conversations whose calls were all decided before the
stop get a resume run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy.orm import aliased
from sqlmodel import col, select

from interlock.engine.records import close_call, error_text
from interlock.errors import InterlockError
from interlock.storage import Conversation, Decision, Run, RunStatus, ToolCall, ToolCallStatus

if TYPE_CHECKING:
    from interlock.engine.runner import Engine

RESTART_REASON = (
    "the server restarted while this call was running; its outcome is unknown and it was "
    "not retried"
)


def recover_runs(engine: Engine) -> list[tuple[str, int, str]]:
    """Repair stale runs; call once at start-up (a blocking call: database thread).

    Returns:
        ``(conversation_id, message_id, owner_id)`` of paused messages that may be ready to
        resume: the caller tries :meth:`Engine.resume_if_decided` on each.
    """
    with engine.db.session() as session:
        stale = session.exec(select(Run).where(Run.status == RunStatus.running)).all()
    for run in stale:
        with engine.db.session() as session:
            for call in session.exec(
                select(ToolCall).where(
                    ToolCall.conversation_id == run.conversation_id,
                    col(ToolCall.status).in_([ToolCallStatus.running, ToolCallStatus.pending]),
                )
            ).all():
                close_call(
                    session,
                    engine.bus,
                    engine.registry,
                    call,
                    status=ToolCallStatus.failed,
                    text=error_text("internal", RESTART_REASON),
                    error_code="internal",
                    error_message=RESTART_REASON,
                    run_id=run.id,
                )
            engine.bus.commit(session)
        error = InterlockError("The server restarted during this run.", code="server_restarted")
        engine.end_run(
            run.id, run.conversation_id, RunStatus.failed, error=error, keep_interrupted=True
        )
    with engine.db.session() as session:
        # Only messages none of whose calls still waits for a decision: a thousand paused
        # conversations must not cost a thousand resume attempts at start-up.
        other = aliased(ToolCall)
        waiting = (
            select(other.id)
            .outerjoin(Decision, col(Decision.tool_call_id) == other.id)
            .where(
                other.message_id == ToolCall.message_id,
                other.status == ToolCallStatus.interrupted,
                col(Decision.id).is_(None),
            )
        )
        candidates = session.exec(
            select(ToolCall.conversation_id, ToolCall.message_id, Conversation.owner_id)
            .join(Conversation, col(Conversation.id) == col(ToolCall.conversation_id))
            .where(
                ToolCall.status == ToolCallStatus.interrupted,
                col(Conversation.active_run_id).is_(None),
                ~waiting.exists(),
            )
            .distinct()
        ).all()
    return [(c, m, o) for c, m, o in candidates]
