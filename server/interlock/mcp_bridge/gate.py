"""An MCP ``tools/call`` through Interlock's gate: run, wait for a person, or refuse.

The call is placed exactly like a model's (:class:`interlock.engine.outside.OutsideCalls`):
``ALLOW`` runs at once; ``ASK`` waits for a decision in the web client's Approvals view and,
where the client supports elicitation and ``mcp_approval_channel`` allows it, in the MCP
client too (the first answer wins: both go through :func:`interlock.engine.decide`): sent
while the call waits on a connection with a session, or as an ``input_required`` round on a
2026-07-28 connection (:mod:`interlock.mcp_bridge.rounds`). The wait
is bounded by the call's deadline (``mcp_approval_timeout_s``, 50 s by default), after which
the call is closed as ``expired`` by the same guarded update as the sweeper's.

Waiting reads the call's row on the database threads and sleeps between reads on a watch of
the call's own run (:meth:`~interlock.streaming.bus.EventBus.watch_run`: woken only by that
call's events, from this process or, through ``LISTEN``, another; and at least every
:data:`SAFETY_POLL_S`), so it holds neither the event loop nor a database connection, and an
event of one call wakes no other caller. A caller that leaves before the decision (its request
cancelled, or its connection closed without a word: a client killed, a network gone) gets its
call closed as ``cancelled`` with the reason "<client> stopped waiting for the decision";
once decided, a call runs and keeps its result whether or not anyone still waits for it (C32).
How a closed connection is noticed: the 2026-07-28 transport cancels the handler itself
when the response stream closes; on the 2025 era the request's SSE response sees the ASGI
``http.disconnect`` but the handler runs on, so :class:`~interlock.mcp_bridge.serve.McpEndpoint`
hands the gate a ``left`` event set by that message. Interlock keeps no event store, so a
2025-era client cannot resume a closed stream: a closed stream is a caller gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import mcp_types as types

from interlock.engine import Engine
from interlock.engine.expiry import expire_call
from interlock.engine.outside import FINAL_STATUSES
from interlock.errors import InterlockError
from interlock.mcp_bridge.rounds import approval_round, decide_from_answer
from interlock.storage import ToolCallStatus
from interlock.storage.views import ToolCallOut
from interlock.tools import is_question

log = logging.getLogger(__name__)

SAFETY_POLL_S = 5.0
"""Longest sleep between two looks at a waiting call; its events wake it sooner (a safety net
for a wakeup lost between workers, e.g. while the listener reconnects)."""

Elicit = Callable[[str, dict[str, Any]], Awaitable[types.ElicitResult]]
"""Asks the MCP client's person: ``(message, requested JSON Schema) -> answer``."""

APPROVAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approve": {
            "type": "boolean",
            "title": "Run it",
            "description": "Yes runs the call as shown; no rejects it.",
        },
        "reason": {
            "type": "string",
            "title": "Reason",
            "description": "Why not (optional; the caller is told).",
        },
    },
    "required": ["approve"],
}


async def call_tool(
    engine: Engine,
    *,
    user_id: str,
    employee_slug: str,
    client_name: str,
    tool_name: str,
    args: dict[str, Any],
    elicit: Elicit | None,
    structure: Callable[[Any], dict[str, Any] | None] | None = None,
    ask_in_round: bool = False,
    answer: tuple[str, types.ElicitResult] | None = None,
    left: asyncio.Event | None = None,
    mcp_session: str | None = None,
) -> types.CallToolResult | types.InputRequiredResult:
    """Place a call from an MCP client and answer it once it has an outcome.

    Args:
        engine: The engine.
        user_id: The token's user.
        employee_slug: The connection's employee.
        client_name: The MCP client's name (``clientInfo``), for the card and the records.
        tool_name: The Interlock tool name.
        args: The args as sent.
        elicit: Asks the person in the MCP client, or None (not supported or not wanted).
        structure: The result's ``structured_content`` from the tool's data, given when the
            MCP tool declares an output schema (None: it declares none). A success it finds no
            object in (the person answered with ``respond`` instead of running the tool) is
            answered as an ``is_error`` result (``responded``): MCP requires structured content
            that fits a declared output schema, and clients refuse a result without it.
        ask_in_round: Ask the client's person through an ``input_required`` answer (a
            2026-07-28 connection that supports elicitation; :mod:`~interlock.mcp_bridge.rounds`).
        answer: ``(call id, answer)`` of a call sent again with its person's answer.
        left: Set when the request's connection closed (the caller is gone without a
            cancel); an undecided call is then closed at once, not left to its deadline.
        mcp_session: The request's ``Mcp-Session-Id`` (None without one): the loop guard
            refuses a call the person rejected only within the same session.

    Returns:
        The tool's result; ``is_error`` with ``Error [<code>]: ...`` text for every other
        outcome (refused, rejected, expired, cancelled, failed); or the approval question
        (``ask_in_round``).
    """
    if answer is not None:
        return await _answered(
            engine, user_id, client_name, tool_name, args, answer, structure, left
        )
    employee = await engine.db.run(engine.employees.get, employee_slug)  # may read the table
    if employee is None:
        return error_result("not_found", f"No employee {employee_slug!r}.")
    placing = asyncio.ensure_future(
        engine.outside.place(
            user_id=user_id,
            employee=employee,
            client_name=client_name,
            tool_name=tool_name,
            args=args,
            mcp_session=mcp_session,
        )
    )
    try:
        placed = await asyncio.shield(placing)
    except InterlockError as exc:
        return error_result(exc.code, exc.message)
    except asyncio.CancelledError:
        # The caller left while its call was being stored: once stored, close it unrun.
        with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
            stored = await placing
            await engine.db.run(engine.outside.caller_left, stored.call.id, client_name)
        raise
    call = placed.call
    if _is_question(engine, call):
        # A question for the person (ask.*, answered with respond): never a yes or no in the
        # MCP client, only in the web client.
        elicit, ask_in_round = None, False
    if call.status == ToolCallStatus.pending:
        await engine.outside.run_allowed(call.id, user_id, employee)
    elif call.status == ToolCallStatus.interrupted and ask_in_round:
        return approval_round(call, approval_question(call, client_name), APPROVAL_SCHEMA)
    elif call.status == ToolCallStatus.interrupted:
        await _await_decision(
            engine, placed.conversation_id, call, user_id, client_name, elicit, left
        )
    return await _final(engine, call.id, structure)


def _is_question(engine: Engine, call: ToolCallOut) -> bool:
    """Whether ``call``'s tool asks the person something (it has a ``check_response``)."""
    return is_question(engine.registry.get(call.name))


async def _answered(
    engine: Engine,
    user_id: str,
    client_name: str,
    tool_name: str,
    args: dict[str, Any],
    answer: tuple[str, types.ElicitResult],
    structure: Callable[[Any], dict[str, Any] | None] | None,
    left: asyncio.Event | None,
) -> types.CallToolResult:
    """A call sent again with its person's answer: decide, then wait for its outcome."""
    call_id, reply = answer
    owned = await engine.db.run(engine.outside.own_call, call_id, user_id)
    if owned is None or owned[0].name != tool_name or owned[0].proposed_args != args:
        return error_result(
            "invalid_request", "That answer is for another call; call the tool again."
        )
    call, conversation_id = owned
    await decide_from_answer(engine, user_id, call.id, reply)
    await _await_decision(engine, conversation_id, call, user_id, client_name, None, left)
    return await _final(engine, call.id, structure)


async def _final(
    engine: Engine, call_id: str, structure: Callable[[Any], dict[str, Any] | None] | None
) -> types.CallToolResult:
    """The MCP result of a call that has its outcome."""
    out, text = await engine.db.run(engine.outside.outcome, call_id)
    if out is None:
        return error_result("not_found", "The call's record was deleted before it ended.")
    result = result_of(out, text)
    if not result.is_error and structure is not None:
        result.structured_content = structure(out.result_data)
        if result.structured_content is None:
            return unstructured(out)
    return result


def unstructured(call: ToolCallOut) -> types.CallToolResult:
    """The result of a success without the data its declared output schema promises: the tool
    did not run because the person answered in its place (``respond``)."""
    answer = call.decision.message if call.decision is not None else None
    if answer:
        return error_result(
            "responded",
            f"The person answered instead of running “{call.title}”: {answer}",
        )
    return error_result(
        "invalid_output", f"“{call.title}” ended without the data its output schema declares."
    )


async def _await_decision(
    engine: Engine,
    conversation_id: str,
    call: ToolCallOut,
    user_id: str,
    client_name: str,
    elicit: Elicit | None,
    left: asyncio.Event | None = None,
) -> None:
    """Wait for the call's outcome; close it as cancelled when the caller leaves first.

    The caller leaves when its request is cancelled (a cancel, or the 2026-era transport
    seeing the stream close) or when ``left`` is set (the 2025-era stream closed). A call
    decided before that runs on and keeps its result; this then returns without waiting.
    """
    asking: asyncio.Task[None] | None = None
    if elicit is not None:
        asking = asyncio.create_task(_ask(engine, call, user_id, client_name, elicit))
    try:
        if left is None:
            await wait_final(engine, conversation_id, call)
        elif not await _final_unless_left(engine, conversation_id, call, left):
            with anyio.CancelScope(shield=True):
                await engine.db.run(engine.outside.caller_left, call.id, client_name)
    except BaseException:
        # The caller left (its request was cancelled): an undecided call is closed, not run.
        with anyio.CancelScope(shield=True):
            await engine.db.run(engine.outside.caller_left, call.id, client_name)
        raise
    finally:
        if asking is not None and not asking.done():
            asking.cancel()
            with contextlib.suppress(BaseException):
                await asking


async def _final_unless_left(
    engine: Engine, conversation_id: str, call: ToolCallOut, left: asyncio.Event
) -> bool:
    """Wait for ``call``'s final status; False as soon as ``left`` is set first."""
    if left.is_set():
        return False
    waiting = asyncio.ensure_future(wait_final(engine, conversation_id, call))
    leaving = asyncio.ensure_future(left.wait())
    try:
        await asyncio.wait({waiting, leaving}, return_when=asyncio.FIRST_COMPLETED)
        if waiting.done():
            waiting.result()  # its error, if any
            return True
        return False
    finally:
        leaving.cancel()
        if not waiting.done():
            waiting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await waiting


async def wait_final(engine: Engine, conversation_id: str, call: ToolCallOut) -> None:
    """Return once ``call`` has a final status; expire it at its deadline if still undecided.

    Woken by the events of the call's own run (every event of an outside call carries it;
    other processes' through ``LISTEN``) and at least every :data:`SAFETY_POLL_S` seconds.
    """
    call_id = call.id
    watch = engine.bus.watch_run(conversation_id, call.run_id)
    try:
        while True:
            watch.wakeup.clear()
            out, _text = await engine.db.run(engine.outside.outcome, call_id)
            if out is None or out.status in FINAL_STATUSES:
                return
            now = engine.deadlines.now()
            wait_s = SAFETY_POLL_S
            undecided = out.status == ToolCallStatus.interrupted and out.decision is None
            if undecided and out.expires_at is not None:
                left_s = (out.expires_at - now).total_seconds()
                if left_s <= 0:
                    await engine.db.run(expire_call, engine, call_id, now)
                    continue
                wait_s = min(wait_s, left_s + 0.005)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(watch.wakeup.wait(), timeout=wait_s)
    finally:
        engine.bus.unwatch_run(watch)


async def _ask(
    engine: Engine, call: ToolCallOut, user_id: str, client_name: str, elicit: Elicit
) -> None:
    """Ask in the MCP client; a yes or no becomes the person's decision (channel ``mcp``).

    A decision already taken in the web client wins: this one is then refused and dropped.
    """
    try:
        answer = await elicit(approval_question(call, client_name), APPROVAL_SCHEMA)
    except Exception as exc:  # the client cannot ask after all: the web client still can
        log.info("elicitation for call %s failed: %s", call.id, exc)
        return
    await decide_from_answer(engine, user_id, call.id, answer)


def approval_question(call: ToolCallOut, client_name: str) -> str:
    """The question the MCP client shows: who asks, what would run (the tool's confirmation
    summary, else its args as ``field “value”``; never the tool's code name)."""
    if call.confirmation is not None:
        return (
            f"{client_name} wants to run “{call.title}” through Interlock: "
            f"{call.confirmation.summary}. Run it?"
        )
    args = args_text(call.proposed_args)
    what = f" with {args}" if args else ""
    return f"{client_name} wants to run “{call.title}” through Interlock{what}. Run it?"


MAX_ARG_CHARS = 60
"""Longest value shown in an approval question (cut with ``…``)."""
MAX_ARGS_SHOWN = 4


def args_text(args: Any) -> str:
    """A call's args for a person: ``title “Plan”, lines 3`` (at most 4, each value cut to
    :data:`MAX_ARG_CHARS` characters; lists and objects as compact JSON); "" for none."""
    if not isinstance(args, dict) or not args:
        return ""
    parts = []
    for key, value in list(args.items())[:MAX_ARGS_SHOWN]:
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        text = " ".join(text.split())
        if len(text) > MAX_ARG_CHARS:
            text = f"{text[: MAX_ARG_CHARS - 1]}…"
        parts.append(f"{key} “{text}”" if isinstance(value, str) else f"{key} {text}")
    more = len(args) - MAX_ARGS_SHOWN
    return ", ".join(parts) + (f" and {more} more" if more > 0 else "")


def result_of(call: ToolCallOut, tool_message: str | None) -> types.CallToolResult:
    """The MCP result of a call with a final status.

    A success carries the tool's text, and when the person edited the call a second block
    saying so with the args it ran with (the caller must not assume its own); any other
    outcome is ``is_error`` with the text a model in a chat would read, starting
    ``Error [<code>]:``.
    """
    if call.status == ToolCallStatus.succeeded:
        content = [types.TextContent(type="text", text=call.result_text or "")]
        if call.decision is not None and call.decision.type == "edit":
            ran_with = json.dumps(call.executed_args, ensure_ascii=False)
            content.append(
                types.TextContent(
                    type="text",
                    text=f"The person edited this call before it ran; it ran with {ran_with}.",
                )
            )
        return types.CallToolResult(content=content, is_error=False)
    code = call.error.code if call.error else call.status
    text = tool_message or (call.error.message if call.error else f"The call ended {call.status}.")
    if not text.startswith("Error ["):
        text = f"Error [{code}]: {text}"
    return error_result(code, text, prefixed=True)


def error_result(code: str, message: str, *, prefixed: bool = False) -> types.CallToolResult:
    """An ``is_error`` result whose text starts with Interlock's stable error code."""
    text = message if prefixed else f"Error [{code}]: {message}"
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        is_error=True,
    )
