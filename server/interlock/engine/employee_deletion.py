"""Deleting an employee: it runs nothing afterwards, and nothing of it waits for a decision.

The employee's record goes first (:meth:`EmployeeDirectory.delete
<interlock.employees.directory.EmployeeDirectory.delete>`: from then on a new message is 409
``employee_deleted``, and so is a decision, re-checked on the server like a disabled
employee's). Then every call of its paused conversations that still waits (for a decision or
for the browser) is closed as ``cancelled``, with an audit record naming the admin and a
reason each reader understands, in one transaction whose events update open pages (the chat's
cards, the Approvals view). No run is resumed: the employee is gone, so no model answers.
Every "don't ask again" grant for it is revoked in that transaction too: an employee created
later with the same slug is someone else, and inherits no one's permissions.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from sqlalchemy import update
from sqlmodel import col, select

from interlock.audit import Channel
from interlock.engine.open_calls import cancel_open_calls
from interlock.engine.records import OPEN_STATUSES
from interlock.engine.tool_texts import CloseReason
from interlock.storage import Conversation, Grant, ToolCall
from interlock.storage.models import utcnow

if TYPE_CHECKING:
    from interlock.engine.runner import Engine

log = logging.getLogger(__name__)


def deleted_reason(name: str) -> CloseReason:
    """Why the waiting calls of employee ``name`` closed when an admin deleted it."""
    return CloseReason(
        model=f"{name} was deleted by an admin",
        owner=f"an admin deleted {name}, so nothing of it runs",
        record=f"{name} was deleted",
    )


def delete_employee(
    engine: Engine, admin_id: str, slug: str, channel: str = Channel.api
) -> list[str]:
    """Delete the admin-made employee ``slug``, close its waiting calls and revoke its grants
    (database thread).

    Args:
        engine: The engine (its directory, storage, bus and registry).
        admin_id: The admin deleting it (the closed calls' decider in the audit log).
        slug: The employee.
        channel: Where the request came from, for the audit log.

    Returns:
        The ids of the calls closed as ``cancelled``.

    Raises:
        NotFound: No such employee.
        Conflict: ``builtin_employee`` for a built-in (disable or reset it instead).
    """
    employee = engine.employees.require(slug)
    engine.employees.delete(slug)
    why = deleted_reason(employee.name)
    closed: list[str] = []
    with engine.db.session() as session:
        # Paused conversations only: an active run's calls are its own to close.
        waiting = session.exec(
            select(Conversation.id)
            .where(
                Conversation.employee == slug,
                col(Conversation.active_run_id).is_(None),
                select(ToolCall.id)
                .where(
                    ToolCall.conversation_id == Conversation.id,
                    col(ToolCall.status).in_([s.value for s in OPEN_STATUSES]),
                )
                .exists(),
            )
            .order_by(col(Conversation.id))
        ).all()
        for conversation_id in waiting:
            closed += cancel_open_calls(
                session,
                engine.bus,
                engine.registry,
                conversation_id,
                why,
                decider=admin_id,
                channel=channel,
                any_open=True,
            )
        session.exec(  # type: ignore[call-overload]
            update(Grant)
            .where(col(Grant.employee) == slug, col(Grant.revoked_at).is_(None))
            .values(revoked_at=utcnow())
        )
        engine.bus.commit(session)
    log.info("employee %s deleted by %s; %d waiting calls cancelled", slug, admin_id, len(closed))
    return closed
