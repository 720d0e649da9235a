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

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    TextPart,
)

from interlock.agui.interrupts import METADATA_KEY, interrupt_for
from interlock.agui.resume import apply_resume
from interlock.agui.state import Plan, stored_state, titles, waiting_calls
from interlock.agui.translate import EventTranslator
from interlock.engine.current_cards import describe_now, with_current
from interlock.engine.runner import Engine
from interlock.errors import BadRequest, Conflict, InterlockError
from interlock.streaming.events import (
    TERMINAL_TYPES,
    ConversationDeleted,
    StreamEvent,
    ToolCallCompleted,
    stream_event_adapter,
)
from interlock.streaming.sse import stored_events
from interlock.text import control_character_problem, is_blank, text_problems

MAX_SHOWN_THREAD_ID = 100
"""Longest part of a mismatched ``threadId`` repeated in the error."""


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
    (``metadata.interlock.details`` as in the HTTP API), and nothing is written; so does a
    ``threadId`` other than the conversation's id (``thread_mismatch``).
    """
    try:
        check_thread(conversation_id, run_input.thread_id)
        plan = await asyncio.shield(
            apply_resume(engine, user_id, conversation_id, run_input.resume)
            if run_input.resume
            else _start_turn(engine, user_id, conversation_id, run_input)
        )
    except InterlockError as exc:
        return _one(run_error(exc))
    return _stream(engine, user_id, conversation_id, run_input, plan)


def check_thread(conversation_id: str, thread_id: str) -> None:
    """The AG-UI thread is the conversation: ``threadId`` must be the id in the URL.

    Raises:
        BadRequest: ``thread_mismatch``, with ``details`` ``{"thread_id", "conversation_id"}``
            (the thread id cut to :data:`MAX_SHOWN_THREAD_ID` characters).
    """
    if thread_id == conversation_id:
        return
    shown = thread_id[:MAX_SHOWN_THREAD_ID]
    raise BadRequest(
        f"This run is for the thread '{shown}', but it was sent to the conversation "
        f"'{conversation_id}': the threadId must be the conversation's id. Nothing was done.",
        code="thread_mismatch",
        details={"thread_id": shown, "conversation_id": conversation_id},
    )


async def _one(event: BaseEvent) -> AsyncIterator[BaseEvent]:
    yield event


async def _stream(
    engine: Engine, user_id: str, conversation_id: str, run_input: RunAgentInput, plan: Plan
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
    async for out in _finish(engine, user_id, conversation_id, run_input, ending):
        yield out


def run_error(exc: InterlockError) -> RunErrorEvent:
    """``RUN_ERROR`` for an Interlock error: its code, sentence and details."""
    details = {METADATA_KEY: {"details": exc.details}} if exc.details is not None else None
    return RunErrorEvent(message=exc.message, code=exc.code, metadata=details)


async def _followed(
    engine: Engine, conversation_id: str, plan: Plan
) -> AsyncGenerator[StreamEvent, None]:
    """The stored events of the planned run, up to and including its terminal."""
    target = plan.run_id
    async with aclosing(stored_events(engine.bus, conversation_id, plan.after_seq)) as events:
        async for stored in events:
            event = stream_event_adapter.validate_json(stored.data)
            if isinstance(event, ConversationDeleted):
                yield event  # the stream's last event
                return
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
    engine: Engine,
    user_id: str,
    conversation_id: str,
    run_input: RunAgentInput,
    ending: StreamEvent | None,
) -> AsyncIterator[BaseEvent]:
    """The run's end: the stored history, then ``RUN_FINISHED`` (or ``RUN_ERROR``).

    Its interrupts describe each waiting card as things are now, as the HTTP API's reads do
    (:func:`~interlock.engine.current_cards.describe_now`: the tool's confirmation run again,
    at most 2 s a card), not with the sentence stored when the call was proposed.
    """
    thread, run = run_input.thread_id, run_input.run_id
    if isinstance(ending, ConversationDeleted):
        yield RunErrorEvent(message="This conversation was deleted.", code="conversation_deleted")
        return
    if ending is not None and ending.type == "run.failed":
        error = ending.error
        yield RunErrorEvent(
            message=str(error.get("message", "The run failed.")),
            code=str(error.get("code", "internal")),
        )
        return
    waiting, history = await engine.db.run(stored_state, engine, conversation_id)
    yield MessagesSnapshotEvent(messages=history)
    if ending is not None and ending.type == "run.cancelled":
        yield RunFinishedEvent(thread_id=thread, run_id=run, outcome=RunFinishedCancelledOutcome())
    elif waiting:
        current = await describe_now(engine, ((c, user_id, conversation_id) for c in waiting))
        interrupts = [
            interrupt_for(with_current(call, current), engine.registry.get(call.name))
            for call in waiting
        ]
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
        BadRequest: ``invalid_request`` when the last message is not a user message, has
            no text (other content parts are not read), has text storage cannot hold (a NUL
            character, an unpaired surrogate), or a control character (Escape, Bell...).
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
    if is_blank(text):  # spaces, zero-width spaces, bidi marks: nothing to read
        raise BadRequest("The message has no text.", code="invalid_request")
    if text_problems(text):
        raise BadRequest(
            "The message contains a NUL character or an unpaired surrogate, which cannot be "
            "stored.",
            code="invalid_request",
        )
    problem = control_character_problem(text, "The message")
    if problem:
        raise BadRequest(problem, code="invalid_request")
    return text


async def _start_turn(
    engine: Engine, user_id: str, conversation_id: str, run_input: RunAgentInput
) -> Plan:
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
            f"{titles(waiting)} {'is' if len(waiting) == 1 else 'are'} still waiting: answer "
            "with resume before sending a new message.",
            code="interrupts_pending",
            details={"interrupts": [call.id for call in waiting]},
        )
    after = await engine.db.run(engine.last_event_seq, user_id, conversation_id)
    run_id, _ = await engine.post_message(user_id, conversation_id, text)
    return Plan(after_seq=after, run_id=run_id)
