"""The person's side of permissions: their grants and their "AI actions" switches.

Every request re-checks ownership on the server: a grant, conversation or employee that is not
the caller's (or does not exist) answers 404 and reveals nothing. Turning a switch off closes
the employee's waiting write calls of that person as ``cancelled`` (each with its tool message
and a reason the model reads), in the transaction that turns it off, and then resumes the
runs that no longer wait for anything.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import update
from sqlmodel import Session, col, select

from interlock.audit import Channel, Outcome, record_outcome
from interlock.employees import Employee
from interlock.engine.records import close_call
from interlock.engine.resumes import claim_resumes_in
from interlock.engine.runner import Engine
from interlock.engine.tool_texts import actions_off_reason, as_sentence, cancelled_text
from interlock.errors import BadRequest, Conflict, NotFound
from interlock.permissions import (
    create_grant,
    grant_state,
    is_action,
    live_grants,
    revoke_grant,
    set_switch,
    start_switch,
)
from interlock.permissions.grants import check_expiry
from interlock.permissions.shapes import ActionsOut, GrantIn, GrantOut
from interlock.permissions.switch import SwitchState
from interlock.storage import Conversation, Grant, ToolCall, ToolCallStatus
from interlock.storage.models import as_utc, utcnow

log = logging.getLogger(__name__)


# -- grants ------------------------------------------------------------------------------
def list_grants(engine: Engine, user_id: str) -> list[GrantOut]:
    """Return the caller's live (unrevoked, unexpired) grants, newest first."""
    with engine.db.session() as session:
        grants = live_grants(session, user_id)
        ids = {g.conversation_id for g in grants if g.conversation_id}
        titles = (
            {
                c.id: c.title
                for c in session.exec(
                    select(Conversation).where(col(Conversation.id).in_(ids))
                ).all()
            }
            if ids
            else {}
        )
    return [_grant_out(engine, g, titles.get(g.conversation_id or "")) for g in grants]


def _check_scope(body: GrantIn) -> None:
    """Refuse a grant whose scope contradicts or lacks its target (422 ``invalid_scope``)."""
    if body.scope == "employee" and body.conversation_id is not None:
        message = (
            "A grant for the whole employee takes no conversation: leave out "
            "conversation_id, or choose the conversation scope."
        )
    elif body.scope == "employee" and body.employee is None:
        message = "A grant for the whole employee needs employee: say which one."
    elif body.scope == "conversation" and body.conversation_id is None:
        message = (
            "A grant for one conversation needs conversation_id: say which one, "
            "or choose the employee scope."
        )
    else:
        return
    raise BadRequest(message, code="invalid_scope")


def add_grant(engine: Engine, user_id: str, body: GrantIn) -> GrantOut:
    """Make a grant from ``POST /api/grants``.

    Raises:
        NotFound: The conversation is unknown or not the caller's.
        Conflict: ``employee_deleted``: the conversation's employee was deleted.
        BadRequest: ``unknown_reference`` for an unknown ``employee``; ``invalid_scope`` (a scope without its target, or an employee grant
            given a conversation), ``unknown_tool``, ``cannot_remember``, ``invalid_args``,
            ``invalid_expiry``, or an employee that is not the conversation's.
    """
    _check_scope(body)
    with engine.db.session() as session:
        conversation: Conversation | None = None
        if body.conversation_id is not None:
            # Share-locked (PostgreSQL) until the grant commits: a delete of the conversation
            # at the same moment either waits and deletes the grant with it, or comes first
            # and this is 404 (no grant left behind for a conversation that is gone).
            conversation = session.get(
                Conversation, body.conversation_id, with_for_update={"read": True}
            )
            if conversation is None or conversation.owner_id != user_id:
                raise NotFound("No such conversation.")
        if body.employee is not None:
            employee: Employee | None = engine.employees.named(body.employee)
        else:  # the conversation's, which may have been deleted since
            employee = engine.employees.get(conversation.employee) if conversation else None
        if employee is None:
            raise Conflict(
                "This conversation's employee was deleted; nothing of it runs.",
                code="employee_deleted",
            )
        if conversation is not None and conversation.employee != employee.slug:
            raise BadRequest(
                f"The conversation is with {conversation.employee}, not {employee.slug}."
            )
        now = utcnow()
        if body.expires_at is not None:
            expires_at = check_expiry(body.expires_at, now=now)
        else:
            expires_at = now + timedelta(days=body.days or engine.settings.grant_days)
        switch = start_switch(
            session, user_id, employee.slug, days=engine.settings.actions_grant_days
        )
        grant = create_grant(
            session,
            registry=engine.registry,
            employee=employee,
            user_id=user_id,
            tool_name=body.tool,
            scope=body.scope,
            conversation=conversation if body.scope == "conversation" else None,
            args=body.args,
            expires_at=expires_at,
            actions_on=switch.on,
            now=now,
        )
        session.commit()
        title = conversation.title if conversation and grant.conversation_id else None
    return _grant_out(engine, grant, title)


def remove_grant(engine: Engine, user_id: str, grant_id: str) -> None:
    """Revoke the caller's grant; the next call of its tool asks again.

    Raises:
        NotFound: Unknown, or not the caller's.
    """
    with engine.db.session() as session:
        if revoke_grant(session, user_id, grant_id) is None:
            raise NotFound("No such grant.")
        session.commit()
    log.info("grant %s revoked by %s", grant_id, user_id)


def _grant_out(engine: Engine, grant: Grant, conversation_title: str | None) -> GrantOut:
    tool = engine.registry.get(grant.tool)
    employee = engine.employees.get(grant.employee)
    return GrantOut(
        id=grant.id,
        tool=grant.tool,
        tool_title=tool.title if tool else grant.tool,
        employee=grant.employee,
        employee_name=employee.name if employee else grant.employee,
        scope=grant.scope,  # type: ignore[arg-type]
        conversation_id=grant.conversation_id,
        conversation_title=conversation_title,
        args=grant.args,
        uses=grant.uses,
        last_used_at=as_utc(grant.last_used_at) if grant.last_used_at else None,
        created_at=as_utc(grant.created_at),
        expires_at=as_utc(grant.expires_at),
        source_call_id=grant.source_call_id,
        void_reason=grant_state(grant, engine.registry, employee),
    )


# -- the "AI actions" switch ----------------------------------------------------------------
def list_switches(engine: Engine, user_id: str) -> list[ActionsOut]:
    """Return the caller's switch for every enabled employee (starting unset ones)."""
    days = engine.settings.actions_grant_days
    with engine.db.session() as session:
        out = [
            _switch_out(e, start_switch(session, user_id, e.slug, days=days), days)
            for e in engine.employees.list()
        ]
        session.commit()
    return out


async def switch_actions(
    engine: Engine, user_id: str, slug: str, on: bool, channel: str = Channel.api
) -> ActionsOut:
    """Turn the caller's switch for ``slug`` on or off.

    Off closes the employee's waiting write calls of the caller as ``cancelled`` (the reason
    in their tool messages; each an audit record naming the person and ``channel``), in the
    same transaction, then resumes the runs left with nothing to wait for.

    Raises:
        NotFound: Unknown employee.
    """
    employee = await engine.db.run(engine.employees.get, slug)
    if employee is None:
        raise NotFound("No such employee.")
    days = engine.settings.actions_grant_days

    def transaction() -> tuple[SwitchState, list[tuple[str, str, int]], set[tuple[str, int]]]:
        with engine.db.session() as session:
            state = set_switch(session, user_id, slug, on=on, days=days)
            closed = (
                [] if on else _cancel_waiting_actions(engine, session, user_id, employee, channel)
            )
            # The resumed runs start with the close (one commit): never idle in between.
            started = claim_resumes_in(engine, session, ((c, m) for _id, c, m in closed))
            engine.bus.commit(session)
        for (conversation_id, _message_id), run_id in started.items():
            engine.spawn_soon(run_id, conversation_id, user_id, start="tools")
        return state, closed, set(started)

    engine.use_running_loop()  # the runs it resumes start from the database thread
    state, closed, started = await engine.db.run(transaction)
    log.info("AI actions for %s turned %s by %s", slug, "on" if on else "off", user_id)
    for conversation_id, message_id in sorted({(c, m) for _id, c, m in closed} - started):
        engine.schedule_resume(conversation_id, message_id, user_id)
    out = _switch_out(employee, state, days)
    out.cancelled_calls = [call_id for call_id, _c, _m in closed]
    return out


def _cancel_waiting_actions(
    engine: Engine, session: Session, user_id: str, employee: Employee, channel: str
) -> list[tuple[str, str, int]]:
    """Close the waiting write calls; return ``(call id, conversation id, message id)``."""
    why = actions_off_reason(employee.name)
    waiting = session.exec(
        select(ToolCall)
        .join(Conversation, col(Conversation.id) == col(ToolCall.conversation_id))
        .where(
            Conversation.owner_id == user_id,
            Conversation.employee == employee.slug,
            ToolCall.status == ToolCallStatus.interrupted,
        )
        .order_by(col(ToolCall.message_id), col(ToolCall.index))
    ).all()
    closed: list[tuple[str, str, int]] = []
    for call in waiting:
        tool = engine.registry.get(call.name)
        if tool is not None and not is_action(tool):
            continue
        # Compare-and-set: a call a resumed run claimed meanwhile is left to that run.
        claimed = session.exec(  # type: ignore[call-overload]
            update(ToolCall)
            .where(
                col(ToolCall.id) == call.id,
                col(ToolCall.status) == ToolCallStatus.interrupted,
            )
            .values(status=ToolCallStatus.cancelled)
        ).rowcount
        if claimed != 1:
            continue
        session.refresh(call)
        record_outcome(
            session,
            call=call,
            decider=user_id,
            channel=channel,
            outcome=Outcome.cancelled,
            reason=as_sentence(why.record),
            proposed_args=call.proposed_args,
            executed_args=None,
        )
        close_call(
            session,
            engine.bus,
            engine.registry,
            call,
            status=ToolCallStatus.cancelled,
            text=cancelled_text(why.model),
            error_code="cancelled",
            error_message=as_sentence(why.owner),
        )
        closed.append((call.id, call.conversation_id, call.message_id))
    return closed


def _switch_out(employee: Employee, state: SwitchState, days: int) -> ActionsOut:
    return ActionsOut(
        employee=employee.slug,
        employee_name=employee.name,
        on=state.on,
        on_until=state.on_until,
        lapsed_at=state.lapsed_at,
        changed_by=state.changed_by,  # type: ignore[arg-type]
        changed_at=state.changed_at,
        grant_days=days,
    )
