"""Interlock's stream events as AG-UI events (protocol 1.0, ``ag-ui-protocol`` types).

One :class:`EventTranslator` serves one AG-UI run and is fed the Interlock events of the
runs it follows, in order. The mapping:

* ``message.delta`` → ``TEXT_MESSAGE_START`` (first delta of a message) and
  ``TEXT_MESSAGE_CONTENT``; the assistant's ``message.completed`` → ``TEXT_MESSAGE_END``
  (or START/CONTENT/END at once for a message that was not streamed).
* ``tool_call.created`` → ``TOOL_CALL_START`` (parent: the assistant message proposing it),
  ``TOOL_CALL_ARGS`` (the proposed args as JSON), ``TOOL_CALL_END``.
* ``tool_call.completed`` → ``TOOL_CALL_RESULT`` (the tool message the model reads: the
  result, the error, the rejection or the answer), also for a call proposed in an earlier
  AG-UI run: the protocol resumes a call without repeating its START.
* Everything else (``run.started``, the user's own message, interrupted / decided / running
  calls) has no AG-UI event of its own; the terminals are the caller's
  (:mod:`interlock.agui.runs`): they need the waiting calls and the stored history.

Message ids: a streamed text message is ``<run id>-text-<n>`` (Interlock stores it only once
complete); a tool message is ``msg-<stored id>``, like every message of
:func:`history_messages`, which a ``MESSAGES_SNAPSHOT`` sends before each run ends.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    FunctionCall,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
    UserMessage,
)
from ag_ui.core import Message as AguiMessage
from ag_ui.core import ToolCall as AguiToolCall

from interlock.storage import Message, MessageRole, ToolCall
from interlock.storage.views import MessageOut, ToolCallOut
from interlock.streaming.events import (
    MessageCompleted,
    MessageDelta,
    StreamEvent,
    ToolCallCompleted,
    ToolCallCreated,
)


def message_id(stored_id: int | None) -> str:
    """The AG-UI id of a stored message: ``msg-<id>``."""
    return f"msg-{stored_id}"


class _HasArgs(Protocol):
    executed_args: Any
    proposed_args: Any
    raw_args: str | None


def call_arguments(call: _HasArgs) -> str:
    """The call's args as a JSON string: those that ran, else those proposed (raw if unparsed)."""
    args = call.executed_args if call.executed_args is not None else call.proposed_args
    if args is None:
        return call.raw_args or "{}"
    return json.dumps(args, ensure_ascii=False)


class EventTranslator:
    """Turns the Interlock events of one AG-UI run into AG-UI events.

    Args:
        prefix: Makes the ids of streamed text messages unique (the AG-UI run's id).
    """

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self._count = 0
        self._open_text: str | None = None
        self._parent: str | None = None
        self.started_calls: set[str] = set()
        """Tool calls whose START this run sent (those still open get an END on close)."""

    def _new_id(self) -> str:
        self._count += 1
        return f"{self._prefix}-text-{self._count}"

    def feed(self, event: StreamEvent) -> list[BaseEvent]:
        """Return the AG-UI events for one Interlock event (often none)."""
        if isinstance(event, MessageDelta):
            return self._delta(event.delta)
        if isinstance(event, MessageCompleted) and event.message.role == MessageRole.assistant:
            return self._assistant(event.message)
        if isinstance(event, ToolCallCreated):
            return self._proposed(event.tool_call)
        if isinstance(event, ToolCallCompleted):
            return [self._result(event.tool_call, event.message)]
        return []

    def close(self) -> list[BaseEvent]:
        """End a text message still open (a run that failed or was cancelled mid-message)."""
        if self._open_text is None:
            return []
        ended = TextMessageEndEvent(message_id=self._open_text)
        self._open_text = None
        return [ended]

    def _delta(self, delta: str) -> list[BaseEvent]:
        if not delta:
            return []
        out: list[BaseEvent] = []
        if self._open_text is None:
            self._open_text = self._new_id()
            out.append(TextMessageStartEvent(message_id=self._open_text, role="assistant"))
        out.append(TextMessageContentEvent(message_id=self._open_text, delta=delta))
        return out

    def _assistant(self, message: MessageOut) -> list[BaseEvent]:
        """An assistant message was stored: end its text; its tool calls follow."""
        if self._open_text is not None:
            self._parent = self._open_text
            return self.close()
        self._parent = self._new_id()
        if not message.content:
            return []  # tool calls only: TOOL_CALL_START names this id as their parent
        return [
            TextMessageStartEvent(message_id=self._parent, role="assistant"),
            TextMessageContentEvent(message_id=self._parent, delta=message.content),
            TextMessageEndEvent(message_id=self._parent),
        ]

    def _proposed(self, call: ToolCallOut) -> list[BaseEvent]:
        self.started_calls.add(call.id)
        return [
            ToolCallStartEvent(
                tool_call_id=call.id, tool_call_name=call.name, parent_message_id=self._parent
            ),
            ToolCallArgsEvent(tool_call_id=call.id, delta=call_arguments(call)),
            ToolCallEndEvent(tool_call_id=call.id),
        ]

    def _result(self, call: ToolCallOut, message: MessageOut | None) -> BaseEvent:
        # The event leaves the tool message's content empty when it equals result_text.
        content = (message.content if message else "") or call.result_text or ""
        if not content and call.error is not None:
            content = call.error.message
        return ToolCallResultEvent(
            message_id=message_id(message.id) if message else f"{call.id}-result",
            tool_call_id=call.id,
            content=content,
            role="tool",
        )


def history_messages(messages: list[Message], calls: list[ToolCall]) -> list[AguiMessage]:
    """Stored messages and tool calls (rows, in order) as AG-UI messages.

    Assistant messages carry their tool calls with the args that ran (else those proposed);
    a tool message that reports a failure, rejection or cancellation also carries its text
    as ``error``.
    """
    by_message: dict[int, list[ToolCall]] = {}
    for call in calls:
        by_message.setdefault(call.message_id, []).append(call)
    out: list[AguiMessage] = []
    for stored in messages:
        ident = message_id(stored.id)
        if stored.role == MessageRole.user:
            out.append(UserMessage(id=ident, content=stored.content))
        elif stored.role == MessageRole.assistant:
            proposed = [
                AguiToolCall(
                    id=call.id,
                    function=FunctionCall(name=call.name, arguments=call_arguments(call)),
                )
                for call in by_message.get(stored.id or 0, [])
            ]
            out.append(
                AssistantMessage(
                    id=ident, content=stored.content or None, tool_calls=proposed or None
                )
            )
        elif stored.role == MessageRole.tool and stored.tool_call_id:
            error = stored.content if stored.tool_status == "error" else None
            out.append(
                ToolMessage(
                    id=ident, content=stored.content, tool_call_id=stored.tool_call_id, error=error
                )
            )
    return out
