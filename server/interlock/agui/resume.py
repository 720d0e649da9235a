"""A ``RunAgentInput.resume`` applied: each entry checked, then decided on Interlock's
decision path (:func:`~interlock.engine.decisions.decide`) or, for a frontend call, its result
submitted (:func:`~interlock.engine.client_results.submit_result`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from ag_ui.core import ResumeEntry

from interlock.agui.interrupts import client_result_for, decision_for
from interlock.agui.state import Plan, active_run, calls_of, titles, waiting_calls
from interlock.audit import Channel
from interlock.engine import DecisionIn, decide
from interlock.engine.client_results import ClientResultIn, submit_result
from interlock.engine.runner import Engine
from interlock.errors import BadRequest, Conflict, NotFound, PayloadTooLarge
from interlock.storage import ToolCallStatus
from interlock.storage.views import ToolCallOut
from interlock.text import text_problems
from interlock.tools.schema import args_refused


@dataclass
class _Answer:
    """One resume entry, checked: the call it answers and what to do with it."""

    call: ToolCallOut
    decision: DecisionIn | None = None
    result: ClientResultIn | None = None
    size: int = 0
    """The result's size in bytes (its JSON), held to ``max_client_result_bytes``."""


async def apply_resume(
    engine: Engine, user_id: str, conversation_id: str, entries: list[ResumeEntry]
) -> Plan:
    """Apply each resume entry as a decision (or a frontend result), all checked first.

    Every entry is checked before the first is applied, so a refused resume writes nothing;
    only a call decided elsewhere between the checks and its turn can leave the entries
    before it applied (each decision is its own transaction, as in the web API).

    Raises:
        BadRequest: ``invalid_resume`` (an interrupt answered twice or not at all, a payload
            that fits no decision, an ``interruptId`` with a NUL character), ``invalid_args`` (edited args against the tool's schema).
        NotFound: An ``interruptId`` that is no tool call of this conversation.
        Conflict: ``not_interrupted`` (with the recorded outcome) for a call no longer
            waiting, as ``POST /api/tool-calls/{id}/decision`` answers; ``run_active`` when
            the entries only dismiss closed calls while a run is active.
    """
    ids = [entry.interrupt_id for entry in entries]
    for index, interrupt_id in enumerate(ids):
        if text_problems(interrupt_id):  # never an id, and PostgreSQL refuses NUL in text
            raise BadRequest(
                "An interruptId contains a NUL character or an unpaired surrogate.",
                code="invalid_resume",
                details={"index": index},
            )
    if len(set(ids)) != len(ids):
        raise BadRequest("Each interrupt may be answered once.", code="invalid_resume")
    waiting = {
        call.id: call for call in await engine.db.run(waiting_calls, engine, conversation_id)
    }
    known = await engine.db.run(calls_of, engine, conversation_id, ids)
    for entry in entries:
        if entry.interrupt_id not in known:
            raise NotFound(
                f"No tool call “{entry.interrupt_id}” in this conversation.",
                details={"interrupt_id": entry.interrupt_id},
            )
    missing = [call for call_id, call in waiting.items() if call_id not in ids]
    if missing:
        raise BadRequest(
            f"Answer every open interrupt: {titles(missing)} not answered.",
            code="invalid_resume",
            details={"missing": [call.id for call in missing]},
        )
    now = engine.deadlines.now()
    answers: list[_Answer] = []
    for entry in entries:
        call = waiting.get(entry.interrupt_id)
        if entry.status == "cancelled" and (call is None or _past(call, now)):
            continue  # dismissing a call that is closed (or past its deadline) changes nothing
        if call is None:
            # Not waiting: tried first, so the decision path answers its 409 (with the
            # recorded outcome) before anything is written.
            answers.insert(0, _answer(engine, entry, known[entry.interrupt_id]))
            continue
        answers.append(_answer(engine, entry, call))
    if not answers and await engine.db.run(active_run, engine, conversation_id) is not None:
        # Only dismissals of closed calls: the thread is not done while a run goes on (it
        # would otherwise look finished and idle to this client).
        raise Conflict(
            "A run is active in this conversation; wait for it or cancel it.", code="run_active"
        )
    after = await engine.db.run(engine.last_event_seq, user_id, conversation_id)
    resumes = bool(answers)
    for answer in answers:
        if answer.result is not None:
            await submit_result(engine, user_id, answer.call.id, answer.result, answer.size)
        elif answer.decision is not None:
            out = await decide(engine, user_id, answer.call.id, answer.decision, Channel.ag_ui)
            resumes = resumes and out.decision is not None  # None: more approvals needed
    # Nothing applied, or a call still needs approvals: no run resumes; finish at once.
    answered = frozenset(answer.call.id for answer in answers)
    return Plan(after_seq=after, follow=resumes, answered=answered)


def _answer(engine: Engine, entry: ResumeEntry, call: ToolCallOut) -> _Answer:
    """Check one entry for a waiting call and say what it does (no writes).

    Raises:
        BadRequest: ``invalid_resume``; ``invalid_args`` for edited args that do not fit.
    """
    if call.status == ToolCallStatus.awaiting_client:
        size = len(json.dumps(entry.payload, ensure_ascii=False).encode("utf-8"))
        limit = engine.settings.max_client_result_bytes
        if size > limit:
            raise PayloadTooLarge(f"The result is {size:,} bytes; the limit is {limit:,}.")
        return _Answer(call=call, result=client_result_for(entry, call), size=size)
    tool = engine.registry.get(call.name)
    decision = decision_for(entry, call, tool)
    if decision.type == "edit" and tool is not None:
        errors = engine.registry.validate_args(tool, decision.args)
        if errors:
            raise args_refused(
                f"The edit of “{call.title}” cannot be used:",
                tool.input_schema,
                errors,
                interrupt_id=call.id,
            )
    return _Answer(call=call, decision=decision)


def _past(call: ToolCallOut, now: datetime) -> bool:
    """Whether ``call``'s deadline passed (server clock; stored naive times are UTC)."""
    if call.expires_at is None:
        return False
    deadline = call.expires_at
    return (deadline if deadline.tzinfo else deadline.replace(tzinfo=UTC)) <= now
