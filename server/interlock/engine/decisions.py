"""Decisions on interrupted tool calls: approve, edit, reject, respond.

The server re-checks everything: ownership (else 404), state (a call that is not
interrupted or already decided answers 409 with the recorded decision) and, for ``edit``,
the tool's JSON Schema (422 with per-field errors; the pause stays open). Of two concurrent
decisions on one call exactly one wins: ``decisions.tool_call_id`` is unique.
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from interlock.audit import Channel, Outcome, record_outcome
from interlock.employees import Employee
from interlock.engine.records import view
from interlock.engine.runner import Engine
from interlock.errors import BadRequest, Conflict, NotFound
from interlock.permissions import actions_on, create_grant, is_action
from interlock.permissions.shapes import RememberIn
from interlock.storage import (
    Conversation,
    Decision,
    DecisionType,
    Grant,
    ToolCall,
    ToolCallStatus,
)
from interlock.storage.models import utcnow
from interlock.storage.text import check_storable
from interlock.storage.views import DecisionOut, ToolCallOut, decision_out
from interlock.streaming.events import ToolCallDecided
from interlock.tools import FieldError, Tool

MAX_DECISION_MESSAGE_CHARS = 8_000

log = logging.getLogger(__name__)


class DecisionIn(BaseModel):
    """A person's decision.

    Attributes:
        type: ``approve`` runs the proposal; ``edit`` runs ``args`` instead; ``reject`` tells
            the model the person declined (``message`` is the reason); ``respond`` makes
            ``message`` the result without running the tool.
        args: The edited arguments (``edit`` only), checked against the tool's schema.
        message: Reason (``reject``) or answer text (``respond``).
        remember: "Don't ask again" (approve and edit only; rejects are never remembered):
            a grant for this tool in this conversation or for this employee, made in the
            same transaction as the decision.
    """

    model_config = ConfigDict(extra="forbid")

    type: Literal["approve", "edit", "reject", "respond"]
    args: dict[str, Any] | None = None
    message: str | None = Field(default=None, max_length=MAX_DECISION_MESSAGE_CHARS)
    remember: RememberIn | None = None

    @model_validator(mode="after")
    def _storable(self) -> DecisionIn:
        check_storable({"args": self.args, "message": self.message})
        return self


_OUTCOMES = {
    DecisionType.approve: Outcome.approved,
    DecisionType.edit: Outcome.edited,
    DecisionType.reject: Outcome.rejected,
    DecisionType.respond: Outcome.responded,
}


async def decide(
    engine: Engine,
    user_id: str,
    tool_call_id: str,
    body: DecisionIn,
    channel: str = Channel.api,
) -> ToolCallOut:
    """Record a decision (and its audit record) and resume the run when it was the last one awaited.

    Args:
        engine: The engine.
        user_id: Who decides.
        tool_call_id: The call decided.
        body: The decision.
        channel: Where it came from (``web``, ``api``, ``mcp``), for the audit log.

    Returns:
        The tool call with its decision.

    Raises:
        NotFound: Unknown call, or not the caller's.
        Conflict: ``not_interrupted``; ``details`` carries ``status`` and the recorded ``decision``.
        BadRequest: ``invalid_args`` with ``details.errors`` (edit; respond to a tool with
            ``check_response``), a missing field, or ``cannot_remember`` (``remember`` on a
            reject or respond, or for a tool that cannot be granted).
        Conflict: ``actions_off`` when approving a write call while the person's "AI actions"
            switch for the employee is off.
    """
    _check_shape(body)
    out, conversation_id, message_id, owner_id = await engine.db.run(
        _record, engine, user_id, tool_call_id, body, channel
    )
    # Resume in a task of its own: the answer and the decided event go out first.
    engine.schedule_resume(conversation_id, message_id, owner_id)
    return out


def _record(
    engine: Engine, user_id: str, tool_call_id: str, body: DecisionIn, channel: str
) -> tuple[ToolCallOut, str, int, str]:
    """The transaction of :func:`decide` (database thread).

    Returns:
        ``(call view, conversation_id, message_id, owner_id)``.
    """
    with engine.db.session() as session:
        call = session.get(ToolCall, tool_call_id)
        conversation = session.get(Conversation, call.conversation_id) if call else None
        if call is None or conversation is None or conversation.owner_id != user_id:
            log.info("decision refused (not_found): tool call %s, user %s", tool_call_id, user_id)
            raise NotFound("No such tool call.")
        existing = session.exec(select(Decision).where(Decision.tool_call_id == call.id)).first()
        if call.status != ToolCallStatus.interrupted or existing is not None:
            raise _not_interrupted(call.id, call.status, _decided(session, engine, existing))
        employee = engine.employees.get(conversation.employee)
        if employee is not None and employee.disabled:
            raise Conflict(f"{employee.name} is disabled; nothing runs.", code="employee_disabled")
        question = engine.registry.get(call.name)
        runs = body.type in (DecisionType.approve, DecisionType.edit)
        if (
            runs
            and question is not None
            and employee is not None
            and is_action(question)
            and not actions_on(session, user_id, employee.slug)
        ):
            raise Conflict(
                f"AI actions for {employee.name} are off, so this cannot run. Turn them on "
                "under Permissions, or reject the call.",
                code="actions_off",
            )
        if (
            question is not None
            and question.check_response is not None
            and body.type in (DecisionType.approve, DecisionType.edit)
        ):
            raise BadRequest(
                "This is a question: answer it with respond, or reject it.",
                code="invalid_request",
            )
        if body.type == DecisionType.edit:
            tool = engine.registry.get(call.name)
            if tool is None:
                raise Conflict("The tool is no longer registered.", code="not_found")
            errors = engine.registry.validate_args(tool, body.args)
            if errors:
                raise BadRequest(
                    "The edited arguments do not match the tool's input schema.",
                    code="invalid_args",
                    details={"errors": [e.as_dict() for e in errors]},
                )
        if body.type == DecisionType.respond:
            tool = engine.registry.get(call.name)
            errors = _response_errors(tool, call.proposed_args, body.message or "")
            if errors:
                raise BadRequest(
                    "The answer does not fit the question.",
                    code="invalid_args",
                    details={"errors": [e.as_dict() for e in errors]},
                )
        decision = Decision(
            tool_call_id=call.id,
            conversation_id=call.conversation_id,
            type=body.type,
            user_id=user_id,
            args=body.args if body.type == DecisionType.edit else None,
            message=body.message,
            proposed_args=call.proposed_args,
        )
        session.add(decision)
        try:
            session.flush()
            if body.remember is not None and employee is not None:
                remember(engine, session, user_id, call, conversation, employee, body)
        except IntegrityError:
            session.rollback()
            winner = session.exec(
                select(Decision).where(Decision.tool_call_id == tool_call_id)
            ).first()
            raise _not_interrupted(
                tool_call_id, ToolCallStatus.interrupted, _decided(session, engine, winner)
            ) from None
        runs = body.type in (DecisionType.approve, DecisionType.edit)
        record_outcome(
            session,
            call=call,
            decider=user_id,
            channel=channel,
            outcome=_OUTCOMES[DecisionType(body.type)],
            reason=body.message,
            proposed_args=call.proposed_args,
            executed_args=(body.args if body.type == DecisionType.edit else call.proposed_args)
            if runs
            else None,
        )
        out = view(session, engine.registry, call)
        engine.bus.stage(
            session, call.conversation_id, ToolCallDecided(run_id=call.run_id, tool_call=out)
        )
        engine.bus.commit(session)
        return out, call.conversation_id, call.message_id, conversation.owner_id


def remember(
    engine: Engine,
    session: Session,
    user_id: str,
    call: ToolCall,
    conversation: Conversation,
    employee: Employee,
    body: DecisionIn,
) -> Grant:
    """Make the grant a decision's ``remember`` asks for (in the decision's transaction).

    Raises:
        BadRequest: ``cannot_remember`` when the decider is not the conversation's owner (a
            grant is the owner's own choice), or the tool cannot be granted.
    """
    assert body.remember is not None
    if user_id != conversation.owner_id:
        raise BadRequest(
            "Only the conversation's owner can choose not to be asked again.",
            code="cannot_remember",
        )
    days = body.remember.days or engine.settings.grant_days
    args = body.args if body.type == DecisionType.edit else call.proposed_args
    now = utcnow()
    return create_grant(
        session,
        registry=engine.registry,
        employee=employee,
        user_id=conversation.owner_id,
        tool_name=call.name,
        scope=body.remember.scope,
        conversation=conversation,
        args=args if body.remember.exact_args and isinstance(args, dict) else None,
        expires_at=now + timedelta(days=days),
        source_call_id=call.id,
        actions_on=actions_on(session, conversation.owner_id, employee.slug),
        now=now,
    )


def _check_shape(body: DecisionIn) -> None:
    if body.type == DecisionType.edit and body.args is None:
        raise BadRequest(
            "An edit needs args.",
            code="invalid_args",
            details={
                "errors": [{"path": [], "message": "args is required for edit", "rule": "required"}]
            },
        )
    if body.type != DecisionType.edit and body.args is not None:
        raise BadRequest("Only an edit carries args.", code="invalid_request")
    if body.type == DecisionType.respond and not (body.message and body.message.strip()):
        raise BadRequest("A respond decision needs a message.", code="invalid_request")
    if body.remember is not None and body.type not in (DecisionType.approve, DecisionType.edit):
        raise BadRequest(
            "Only an approval can be remembered; rejects and answers are never remembered.",
            code="cannot_remember",
        )


def _response_errors(tool: Tool | None, args: Any, message: str) -> list[FieldError]:
    """Run ``tool.check_response(args, message)``; a check that raises refuses the answer."""
    if tool is None or tool.check_response is None:
        return []
    try:
        return list(tool.check_response(args if isinstance(args, dict) else {}, message))
    except Exception as exc:
        log.exception("check_response of tool %r raised", tool.name)
        return [
            FieldError(
                path=[],
                message=f"The answer could not be checked ({type(exc).__name__}).",
                rule="check_response",
            )
        ]


def _decided(session: Session, engine: Engine, decision: Decision | None) -> DecisionOut | None:
    """The wire shape of a recorded decision (with the decider's name), or None."""
    if decision is None:
        return None
    call = session.get(ToolCall, decision.tool_call_id)
    out = view(session, engine.registry, call, decision).decision if call else None
    return out or decision_out(decision)


def _not_interrupted(tool_call_id: str, status: str, decision: DecisionOut | None) -> Conflict:
    log.info(
        "decision refused (not_interrupted): tool call %s is %s, decided %s",
        tool_call_id,
        status,
        decision.type if decision else "never",
    )
    return Conflict(
        "This tool call is not waiting for a decision.",
        code="not_interrupted",
        details={
            "status": status,
            "decision": decision.model_dump(mode="json") if decision else None,
        },
    )
