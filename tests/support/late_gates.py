"""The shared set-up of the tests of a call stopped or timed out while its tool runs.

A :class:`Gate` is a tool handler that blocks in its worker thread until the test lets it
return (``test_engine_finished_late``, ``test_engine_timed_out_late``,
``test_engine_stopped_while_running``); :func:`call_rows` reads what the call's rows say
(the call, its tool messages, the conversation's events, the call's audit records). Every
wait is bounded (:data:`~support.live.WAIT_S`).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlmodel import col, select

from interlock.storage import AuditRecord, Event, Message, ToolCall
from interlock.tools import Permission, Tool, ToolContext, ToolError, tool
from support.live import WAIT_S, LiveServer


class Gate:
    """A tool handler that blocks until the test opens the gate, then has its effect.

    Args:
        fail: Fail with "The list is locked by someone else." instead, once opened.
    """

    def __init__(self, fail: bool = False) -> None:
        self.started = threading.Event()
        self.release = threading.Event()
        self.done = threading.Event()
        self.fail = fail
        self.effects: list[str] = []

    def _wait(self, args: dict[str, Any]) -> None:
        self.started.set()
        assert self.release.wait(WAIT_S), "the test never opened the gate"
        if self.fail:
            raise ToolError("upstream_error", "The list is locked by someone else.")
        self.effects.append(str(args["text"]))

    def add_note(self, args: dict[str, Any], ctx: ToolContext) -> str:
        """Add a note through ``ctx.store`` (undoable): ``Added note 1: <text>``."""
        self._wait(args)
        key = ctx.store.add("notes", args["text"], label=f"note {args['text']}")
        self.done.set()
        return f"Added note {key}: {args['text']}"

    def write(self, args: dict[str, Any], ctx: ToolContext) -> str:
        """Record the write in :attr:`effects` only: ``Wrote <text>.``."""
        self._wait(args)
        self.done.set()
        return f"Wrote {args['text']}."


def slow_tool(
    handler: Callable[[dict[str, Any], ToolContext], str],
    *,
    name: str = "test.slow_note",
    title: str = "Add a note slowly",
    description: str = "Adds a note, slowly.",
    timeout_s: float | None = None,
) -> Tool:
    """An allowed writing tool of one ``text`` argument that runs ``handler`` in a thread."""
    return tool(
        name=name,
        title=title,
        description=description,
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        permission=Permission.ALLOW,
        write=True,
        timeout_s=timeout_s,
    )(handler)


async def started(gate: Gate) -> None:
    """Wait (bounded) until the gated tool runs."""
    assert await asyncio.to_thread(gate.started.wait, WAIT_S), "the tool never started"


async def finish_late(server: LiveServer, gate: Gate) -> None:
    """Open the gate and wait until the engine stored what the tool did."""
    gate.release.set()
    await server.services.engine.late.wait(WAIT_S)


def only_call(server: LiveServer, conversation_id: str) -> ToolCall:
    """The conversation's one tool call."""
    with server.services.db.session() as session:
        [call] = session.exec(
            select(ToolCall).where(ToolCall.conversation_id == conversation_id)
        ).all()
    return call


@dataclass(frozen=True)
class CallRows:
    """What the rows of one call say, read at once (:func:`call_rows`)."""

    call: ToolCall
    messages: list[Message]
    events: list[Event]
    audit: list[AuditRecord]

    @property
    def contents(self) -> list[str]:
        """The call's tool messages' texts."""
        return [m.content for m in self.messages]

    @property
    def types(self) -> list[str]:
        """The conversation's event types, in order."""
        return [e.type for e in self.events]

    @property
    def seqs(self) -> list[int]:
        """The conversation's event sequence numbers, in order."""
        return [e.seq for e in self.events]

    @property
    def acts(self) -> list[tuple[str, str | None]]:
        """``(outcome, reason)`` of the call's audit records but the allowed run's, in order."""
        return [(a.outcome, a.reason) for a in self.audit if a.outcome != "allowed"]


def call_rows(server: LiveServer, conversation_id: str, call_id: str) -> CallRows:
    """Read ``call_id`` with its tool messages and audit records, and the conversation's
    events."""
    with server.services.db.session() as session:
        call = session.get(ToolCall, call_id)
        messages = session.exec(select(Message).where(Message.tool_call_id == call_id)).all()
        events = session.exec(
            select(Event).where(Event.conversation_id == conversation_id).order_by(col(Event.seq))
        ).all()
        audit = session.exec(
            select(AuditRecord)
            .where(AuditRecord.tool_call_id == call_id)
            .order_by(col(AuditRecord.seq))
        ).all()
    assert call is not None
    return CallRows(call, list(messages), list(events), list(audit))
