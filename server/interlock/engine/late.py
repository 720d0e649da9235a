"""A stopped call's real outcome, recorded when its tool returns after all.

A call closed while its tool ran (its run cancelled, a new message, a stopped worker's repair)
says it may have happened: ``failed`` with ``outcome_unknown``, one tool message, never run
again (:func:`~interlock.engine.open_calls.cancel_open_calls`). A tool running in a worker
thread cannot be stopped, so its effect may still land. When it returns, its outcome is
recorded on the call exactly once (:func:`close_late`: a compare-and-set on the stopped call
whose ``finished_late_at`` is still empty): ``succeeded`` with its result (Undo then works as
for any write), or ``failed`` with its error, with ``tool_call.finished_late`` and an audit
record ``finished_late``. A tool that never returns (the process was killed) leaves the call
as it was: "may have happened".

A tool in a worker thread past its timeout runs on the same way: its call is closed
``timeout`` ("... is still running, so it may still happen"), the engine follows the thread
(:data:`STILL_RUNNING`), and its outcome is recorded by the same :func:`close_late`, with
``finished_late_after`` ``timeout`` ("Happened after it timed out: ...").

The run is not resumed and no tool message is added: the conversation has moved on, and a
call has one tool message (what the model was told then). The model learns the real outcome
from a note in its system prompt on its next step (:func:`late_calls_note`), as it learns of
undone calls, so its earlier answers stay consistent with what it saw and the cached history
(:mod:`~interlock.engine.history`) stays valid.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from sqlalchemy import bindparam, case, update
from sqlalchemy import select as core_select
from sqlmodel import Session, col

from interlock.audit import SYSTEM_DECIDER, Channel, Outcome, record_outcome
from interlock.engine.records import closing_changes, view
from interlock.engine.tool_texts import failure
from interlock.storage import ToolCall, ToolCallStatus
from interlock.storage.read_soon import Soon, read_soon
from interlock.streaming import EventBus
from interlock.streaming.events import ToolCallFinishedLate
from interlock.tools import Tool, ToolContext, ToolError, ToolRegistry, ToolResult
from interlock.tools.execution import ToolTimedOut, retrieved

logger = logging.getLogger(__name__)

STOPPED_CODE = "outcome_unknown"
TIMEOUT_CODE = "timeout"
NO_NEWS = frozenset({TIMEOUT_CODE, STOPPED_CODE})
"""Error codes of a late failure that say nothing new (the outcome is still not known): the
call stays "may have happened"."""

_SENTENCE_CHARS = 200
_NOTE_CHARS = 1000

_calls = ToolCall.__table__  # type: ignore[attr-defined]
_LATE_CALLS = (
    core_select(
        _calls.c.id,
        _calls.c.name,
        _calls.c.status,
        _calls.c.result_text,
        _calls.c.error_message,
        _calls.c.finished_late_after,
    )
    .where(_calls.c.conversation_id == bindparam("cid"), _calls.c.finished_late_at.is_not(None))
    .order_by(_calls.c.finished_late_at)
)
"""Prebuilt (read on every model step, through the partial index ``ix_tool_calls_finished_late``:
usually no row)."""


async def tool_outcome(
    registry: ToolRegistry, tool: Tool, args: Any, context: ToolContext
) -> dict[str, Any]:
    """Run the tool; its outcome as ``close_call`` keyword arguments.

    A sync tool past its timeout runs on in its thread: its ``timeout`` outcome then also has
    :data:`STILL_RUNNING`, the future of its outcome when it returns (to pop before closing
    the call, and to record with :func:`close_late`)."""
    try:
        result = await registry.execute(tool, args, context)
    except ToolTimedOut as exc:
        outcome = failure(exc)
        if exc.still_running is not None:
            outcome[STILL_RUNNING] = retrieved(asyncio.ensure_future(_returned(exc.still_running)))
        return outcome
    except ToolError as exc:
        return failure(exc)
    return _succeeded(result)


STILL_RUNNING = "still_running"
"""The key of a timed-out outcome whose tool still runs (:func:`tool_outcome`)."""


async def _returned(thread: asyncio.Future[ToolResult]) -> dict[str, Any]:
    """The outcome of a tool that returned after its timeout."""
    try:
        return _succeeded(await thread)
    except ToolError as exc:
        return failure(exc)


def _succeeded(result: ToolResult) -> dict[str, Any]:
    return {
        "status": ToolCallStatus.succeeded,
        "text": result.text,
        "result_data": result.data,
        "full_text": result.full_text,
    }


def close_late(
    session: Session,
    bus: EventBus,
    registry: ToolRegistry,
    call: ToolCall,
    outcome: dict[str, Any],
) -> bool:
    """Record the outcome of ``call``'s tool, returned after the call was closed as stopped.

    Args:
        session: Open session; the caller commits with ``bus.commit(session)``.
        bus: Event bus.
        registry: Tool registry.
        call: The call (its id and conversation).
        outcome: ``close_call`` keyword arguments: ``status``, ``text`` and the result's or
            the error's fields.

    Returns:
        True when recorded; False when the call is not a stopped call still waiting for its
        outcome (recorded already, closed otherwise, or gone with its conversation), or the
        outcome says nothing new (a timeout).
    """
    status = outcome["status"]
    if status != ToolCallStatus.succeeded and outcome.get("error_code") in NO_NEWS:
        return False
    changes, output = closing_changes(
        call,
        status,
        outcome["text"],
        outcome.get("result_data"),
        outcome.get("error_code"),
        outcome.get("error_message"),
        outcome.get("full_text"),
    )
    changes["finished_late_at"] = changes["finished_at"]
    # What the call was closed as (every SET reads the row as it was, on both backends).
    changes["finished_late_after"] = case(
        (col(ToolCall.error_code) == TIMEOUT_CODE, TIMEOUT_CODE), else_="stopped"
    )
    taken = session.exec(  # type: ignore[call-overload]
        update(ToolCall)
        .where(
            col(ToolCall.id) == call.id,
            col(ToolCall.status) == ToolCallStatus.failed,
            col(ToolCall.error_code).in_([STOPPED_CODE, TIMEOUT_CODE]),
            col(ToolCall.started_at).is_not(None),
            col(ToolCall.finished_late_at).is_(None),
        )
        .values(**changes)
    ).rowcount
    if taken != 1:
        return False
    session.add_all(output)
    fresh = session.get(ToolCall, call.id, populate_existing=True)
    assert fresh is not None
    record_outcome(
        session,
        call=fresh,
        decider=SYSTEM_DECIDER,
        channel=Channel.system,
        outcome=Outcome.finished_late,
        reason=late_sentence(
            fresh.status, fresh.result_text, fresh.error_message, fresh.finished_late_after
        ),
        proposed_args=fresh.proposed_args,
        executed_args=fresh.executed_args,
    )
    bus.stage(
        session,
        fresh.conversation_id,
        ToolCallFinishedLate(run_id=fresh.run_id, tool_call=view(session, registry, fresh)),
    )
    return True


def late_sentence(
    status: str,
    result_text: str | None,
    error_message: str | None,
    after: str | None = None,
    limit: int = _SENTENCE_CHARS,
) -> str:
    """The person's sentence for a late outcome: ``Happened after it was stopped: Added note
    #6: buy milk`` or ``Failed after it was stopped: <the error>`` (cut to ``limit``); "after
    it timed out" when ``after`` is ``"timeout"`` (the call's ``finished_late_after``)."""
    when = "after it timed out" if after == TIMEOUT_CODE else "after it was stopped"
    if status == ToolCallStatus.succeeded:
        what = _clip(result_text or "", limit)
        return f"Happened {when}: {what}" if what else f"Happened {when}."
    return f"Failed {when}: {_clip(error_message or 'it failed.', limit)}"


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else f"{flat[: limit - 1]}…"


def read_late_calls(session: Session, conversation_id: str) -> Soon:
    """The read :func:`late_calls_note` needs, queued to go out with the transaction's next
    round trip (:mod:`~interlock.storage.read_soon`)."""
    return read_soon(session, _LATE_CALLS, {"cid": conversation_id})


def late_calls_note(registry: ToolRegistry, late: Soon) -> str:
    """The system prompt section listing the calls whose tool finished after they were
    stopped ("" for none): their tool messages say they may have happened; this says what
    did. ``late``: its read (:func:`read_late_calls`)."""
    rows = late.result().rows
    if not rows:
        return ""
    lines = []
    for row in rows:
        tool = registry.get(row.name)
        title = tool.title if tool is not None and tool.title else row.name
        what = late_sentence(
            row.status, row.result_text, row.error_message, row.finished_late_after, _NOTE_CHARS
        )
        lines.append(f"- “{title}” (tool call {row.id}): {what[0].lower()}{what[1:]}")
    return (
        "\n\n## Finished after they were stopped\n"
        "These tool calls were stopped (or timed out) while their tools ran, so their tool "
        "messages say they may have happened or failed. Their tools finished later; this is "
        "what really happened. Do not "
        "run them again unless the person asks.\n" + "\n".join(lines)
    )


class LateResults:
    """The tools still running after their run was cancelled, whose outcome is recorded when
    they return (one per engine; :meth:`aclose` at shutdown gives up on them: their calls
    stay "may have happened")."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[None]] = set()

    def __len__(self) -> int:
        return len(self._tasks)

    def follow(
        self, job: asyncio.Future[dict[str, Any]], store: Callable[[dict[str, Any]], Awaitable[Any]]
    ) -> None:
        """Call ``store`` with the outcome ``job`` returns (nothing when it is cancelled)."""
        task = asyncio.get_running_loop().create_task(_store_when_done(job, store))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def wait(self, timeout_s: float) -> None:
        """Wait until every followed tool returned and its outcome was stored (tests)."""
        async with asyncio.timeout(timeout_s):
            while self._tasks:
                await asyncio.wait(list(self._tasks))

    async def aclose(self, timeout_s: float) -> None:
        """Stop following (shutdown): the tools' results are not stored."""
        tasks = list(self._tasks)
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=timeout_s)


async def _store_when_done(
    job: asyncio.Future[dict[str, Any]], store: Callable[[dict[str, Any]], Awaitable[Any]]
) -> None:
    try:
        outcome = await job
    except asyncio.CancelledError:
        if job.cancelled():
            return  # the tool was stopped (an async tool): it never returned
        raise
    except Exception:
        logger.exception("A tool stopped while it ran failed after all")
        return
    await store(outcome)
