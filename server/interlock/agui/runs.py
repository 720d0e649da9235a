"""One AG-UI run of a conversation: start a turn or apply a resume, then stream it.

A ``RunAgentInput`` either carries ``resume`` (answers to the interrupts the previous run
ended with) or a new user message (the last of ``messages``). What it sets off runs on
Interlock's own engine, exactly as from the web client: a message goes through
``Engine.post_message``, each answer through :func:`~interlock.engine.decisions.decide` (or
:func:`~interlock.engine.client_results.submit_result` for a frontend call), with the same
checks and audit records (channel ``ag-ui``). The AG-UI events are Interlock's stored event
stream translated (:mod:`interlock.agui.translate`), so nothing runs twice and a client that
leaves does not stop the run.

The client's copy of the history is not trusted: besides the new user message, ``messages``
(and ``state``, ``tools``, ``context``, ``forwardedProps``) are not read. Before each run
ends, a ``MESSAGES_SNAPSHOT`` sends Interlock's stored history, which replaces the client's.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass
from datetime import UTC, datetime

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    TextPart,
)
from ag_ui.core import Message as AguiMessage
from sqlmodel import col, select

from interlock.agui.interrupts import METADATA_KEY, client_result_for, decision_for, interrupt_for
from interlock.agui.translate import EventTranslator, history_messages
from interlock.audit import Channel
from interlock.engine import DecisionIn, decide
from interlock.engine.client_results import ClientResultIn, submit_result
from interlock.engine.records import view, waiting_for_person
from interlock.engine.runner import Engine
from interlock.errors import BadRequest, Conflict, InterlockError, NotFound
from interlock.storage import Decision, Message, ToolCall, ToolCallStatus
from interlock.storage.text import check_storable
from interlock.storage.views import ToolCallOut
from interlock.streaming.events import (
    TERMINAL_TYPES,
    StreamEvent,
    ToolCallCompleted,
    stream_event_adapter,
)
from interlock.streaming.sse import stored_events


@dataclass
class _Answer:
    """One resume entry, checked: the call it answers and what to do with it."""

    call: ToolCallOut
    decision: DecisionIn | None = None
    result: ClientResultIn | None = None


@dataclass
class _Plan:
    """What a prepared run streams: events after ``after_seq`` of ``run_id`` (None: of the
    next run that starts), or nothing when ``follow`` is false (finish at once)."""

    after_seq: int = 0
    run_id: str | None = None
    follow: bool = True
    answered: frozenset[str] = frozenset()
    """Calls the resume answered: their results may come before the resumed run starts
    (a frontend call's result closes it at once)."""


async def agui_events(
    engine: Engine, user_id: str, conversation_id: str, run_input: RunAgentInput
) -> AsyncIterator[BaseEvent]:
    """Start one AG-UI run and return its events, ``RUN_STARTED`` to ``RUN_FINISHED`` or
    ``RUN_ERROR``.

    The writes (the new message and its run, or the resume's decisions) happen here, before
    the first event is sent, so a client leaving the stream cannot cut them halfway: call it
    from the request, not from inside the stream. The caller has checked that ``user_id``
    owns the conversation. A request that cannot start (bad resume, calls still waiting, a
    run already active, ...) gets one ``RUN_ERROR`` with Interlock's stable ``code``
    (``metadata.interlock.details`` as in the HTTP API), and nothing is written.
    """
    try:
        plan = await asyncio.shield(
            _resume(engine, user_id, conversation_id, run_input.resume)
            if run_input.resume
            else _start_turn(engine, user_id, conversation_id, run_input)
        )
    except InterlockError as exc:
        return _one(run_error(exc))
    return _stream(engine, conversation_id, run_input, plan)


async def _one(event: BaseEvent) -> AsyncIterator[BaseEvent]:
    yield event


async def _stream(
    engine: Engine, conversation_id: str, run_input: RunAgentInput, plan: _Plan
) -> AsyncIterator[BaseEvent]:
    """The events of a started run: its translated events, then its end."""
    yield RunStartedEvent(
        thread_id=run_input.thread_id, run_id=run_input.run_id, protocol_version=PROTOCOL_VERSION
    )
    translator = EventTranslator(prefix=run_input.run_id)
    ending: StreamEvent | None = None
    if plan.follow:
        async with aclosing(_followed(engine, conversation_id, plan)) as followed:
            async for event in followed:
                for out in translator.feed(event):
                    yield out
                ending = event
    for out in translator.close():
        yield out
    async for out in _finish(engine, conversation_id, run_input, ending):
        yield out


def run_error(exc: InterlockError) -> RunErrorEvent:
    """``RUN_ERROR`` for an Interlock error: its code, sentence and details."""
    details = {METADATA_KEY: {"details": exc.details}} if exc.details is not None else None
    return RunErrorEvent(message=exc.message, code=exc.code, metadata=details)


async def _followed(
    engine: Engine, conversation_id: str, plan: _Plan
) -> AsyncGenerator[StreamEvent, None]:
    """The stored events of the planned run, up to and including its terminal."""
    target = plan.run_id
    async with aclosing(stored_events(engine.bus, conversation_id, plan.after_seq)) as events:
        async for stored in events:
            event = stream_event_adapter.validate_json(stored.data)
            if target is None and event.type == "run.started":
                target = event.run_id  # the run the decisions resumed
            if target is None and isinstance(event, ToolCallCompleted):
                if event.tool_call.id in plan.answered:
                    yield event
                continue
            if event.run_id != target:
                continue
            yield event
            if event.type in TERMINAL_TYPES:
                return


async def _finish(
    engine: Engine, conversation_id: str, run_input: RunAgentInput, ending: StreamEvent | None
) -> AsyncIterator[BaseEvent]:
    """The run's end: the stored history, then ``RUN_FINISHED`` (or ``RUN_ERROR``)."""
    thread, run = run_input.thread_id, run_input.run_id
    if ending is not None and ending.type == "run.failed":
        error = ending.error
        yield RunErrorEvent(
            message=str(error.get("message", "The run failed.")),
            code=str(error.get("code", "internal")),
        )
        return
    waiting, history = await engine.db.run(_state, engine, conversation_id)
    yield MessagesSnapshotEvent(messages=history)
    if ending is not None and ending.type == "run.cancelled":
        yield RunFinishedEvent(thread_id=thread, run_id=run, outcome=RunFinishedCancelledOutcome())
    elif waiting:
        interrupts = [interrupt_for(call, engine.registry.get(call.name)) for call in waiting]
        yield RunFinishedEvent(
            thread_id=thread,
            run_id=run,
            outcome=RunFinishedInterruptOutcome(interrupts=interrupts),
        )
    else:
        yield RunFinishedEvent(thread_id=thread, run_id=run, outcome=RunFinishedSuccessOutcome())


# -- a new user message ----------------------------------------------------------------------


def user_text(run_input: RunAgentInput) -> str:
    """The text of the new user message: the last of ``messages``, which must be the user's.

    Raises:
        BadRequest: ``invalid_request`` when the last message is not a user message, or has
            no text (other content parts are not read).
    """
    last = run_input.messages[-1] if run_input.messages else None
    if last is None or last.role != "user":
        raise BadRequest(
            "Nothing to answer: put the person's new message last in messages, or answer the "
            "interrupts with resume.",
            code="invalid_request",
        )
    content = last.content
    text = (
        content
        if isinstance(content, str)
        else "\n".join(part.text for part in content if isinstance(part, TextPart))
    )
    if not text.strip():
        raise BadRequest("The message has no text.", code="invalid_request")
    return str(check_storable(text))


async def _start_turn(
    engine: Engine, user_id: str, conversation_id: str, run_input: RunAgentInput
) -> _Plan:
    """Store the new user message and start its run, as ``POST .../messages`` does."""
    text = user_text(run_input)
    size = len(text.encode("utf-8"))
    if size > engine.settings.max_message_bytes:
        raise BadRequest(
            f"The message is {size} bytes; the limit is {engine.settings.max_message_bytes}.",
            code="message_too_large",
        )
    waiting = await engine.db.run(waiting_calls, engine, conversation_id)
    if waiting:
        raise Conflict(
            f"{_titles(waiting)} {'is' if len(waiting) == 1 else 'are'} still waiting: answer "
            "with resume before sending a new message.",
            code="interrupts_pending",
            details={"interrupts": [call.id for call in waiting]},
        )
    after = await engine.db.run(engine.last_event_seq, user_id, conversation_id)
    run_id, _ = await engine.post_message(user_id, conversation_id, text)
    return _Plan(after_seq=after, run_id=run_id)


# -- a resume --------------------------------------------------------------------------------


async def _resume(
    engine: Engine, user_id: str, conversation_id: str, entries: list[ResumeEntry]
) -> _Plan:
    """Apply each resume entry as a decision (or a frontend result), all checked first.

    Every entry is checked before the first is applied, so a refused resume writes nothing;
    only a call decided elsewhere between the checks and its turn can leave the entries
    before it applied (each decision is its own transaction, as in the web API).

    Raises:
        BadRequest: ``invalid_resume`` (an interrupt answered twice or not at all, a payload
            that fits no decision), ``invalid_args`` (edited args against the tool's schema).
        NotFound: An ``interruptId`` that is no tool call of this conversation.
        Conflict: ``not_interrupted`` (with the recorded outcome) for a call no longer
            waiting, as ``POST /api/tool-calls/{id}/decision`` answers.
    """
    ids = [entry.interrupt_id for entry in entries]
    if len(set(ids)) != len(ids):
        raise BadRequest("Each interrupt may be answered once.", code="invalid_resume")
    waiting = {
        call.id: call for call in await engine.db.run(waiting_calls, engine, conversation_id)
    }
    known = await engine.db.run(_calls_of, engine, conversation_id, ids)
    for entry in entries:
        if entry.interrupt_id not in known:
            raise NotFound(
                f"No tool call {entry.interrupt_id!r} in this conversation.",
                details={"interrupt_id": entry.interrupt_id},
            )
    missing = [call for call_id, call in waiting.items() if call_id not in ids]
    if missing:
        raise BadRequest(
            f"Answer every open interrupt: {_titles(missing)} not answered.",
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
    after = await engine.db.run(engine.last_event_seq, user_id, conversation_id)
    resumes = bool(answers)
    for answer in answers:
        if answer.result is not None:
            await submit_result(engine, user_id, answer.call.id, answer.result, 0)
        elif answer.decision is not None:
            out = await decide(engine, user_id, answer.call.id, answer.decision, Channel.ag_ui)
            resumes = resumes and out.decision is not None  # None: more approvals needed
    # Nothing applied, or a call still needs approvals: no run resumes; finish at once.
    answered = frozenset(answer.call.id for answer in answers)
    return _Plan(after_seq=after, follow=resumes, answered=answered)


def _answer(engine: Engine, entry: ResumeEntry, call: ToolCallOut) -> _Answer:
    """Check one entry for a waiting call and say what it does (no writes).

    Raises:
        BadRequest: ``invalid_resume``; ``invalid_args`` for edited args that do not fit.
    """
    if call.status == ToolCallStatus.awaiting_client:
        return _Answer(call=call, result=client_result_for(entry, call))
    tool = engine.registry.get(call.name)
    decision = decision_for(entry, call, tool)
    if decision.type == "edit" and tool is not None:
        errors = engine.registry.validate_args(tool, decision.args)
        if errors:
            first = errors[0]
            where = ".".join(str(p) for p in first.path) or "args"
            raise BadRequest(
                f"The edited arguments of “{call.title}” do not match the tool's input schema "
                f"({where}: {first.message}).",
                code="invalid_args",
                details={"interrupt_id": call.id, "errors": [e.as_dict() for e in errors]},
            )
    return _Answer(call=call, decision=decision)


def _past(call: ToolCallOut, now: datetime) -> bool:
    """Whether ``call``'s deadline passed (server clock; stored naive times are UTC)."""
    if call.expires_at is None:
        return False
    deadline = call.expires_at
    return (deadline if deadline.tzinfo else deadline.replace(tzinfo=UTC)) <= now


def _titles(calls: list[ToolCallOut]) -> str:
    names = [f"“{call.title}” ({call.id})" for call in calls]
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]


# -- reads (database thread) -----------------------------------------------------------------


def waiting_calls(engine: Engine, conversation_id: str) -> list[ToolCallOut]:
    """The conversation's calls waiting for the person, in call order (a blocking call)."""
    with engine.db.session() as session:
        rows = session.exec(
            select(ToolCall)
            .outerjoin(Decision, col(Decision.tool_call_id) == col(ToolCall.id))
            .where(ToolCall.conversation_id == conversation_id, waiting_for_person())
            .order_by(col(ToolCall.message_id), col(ToolCall.index))
        ).all()
        return [view(session, engine.registry, row) for row in rows]


def _calls_of(engine: Engine, conversation_id: str, ids: list[str]) -> dict[str, ToolCallOut]:
    """The calls of the conversation among ``ids`` (a blocking call)."""
    with engine.db.session() as session:
        rows = session.exec(
            select(ToolCall).where(
                ToolCall.conversation_id == conversation_id, col(ToolCall.id).in_(ids)
            )
        ).all()
        return {row.id: view(session, engine.registry, row) for row in rows}


def _state(engine: Engine, conversation_id: str) -> tuple[list[ToolCallOut], list[AguiMessage]]:
    """The waiting calls and the stored history as AG-UI messages (a blocking call)."""
    waiting = waiting_calls(engine, conversation_id)
    with engine.db.session() as session:
        messages = session.exec(
            select(Message)
            .where(Message.conversation_id == conversation_id)
            .order_by(col(Message.id))
        ).all()
        calls = session.exec(
            select(ToolCall)
            .where(ToolCall.conversation_id == conversation_id)
            .order_by(col(ToolCall.message_id), col(ToolCall.index))
        ).all()
        return waiting, history_messages(list(messages), list(calls))
