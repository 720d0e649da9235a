"""Build the model's view of a conversation from Interlock's tables, incrementally.

Rules kept here (OpenAI's and Anthropic's tool-message ordering): every assistant message
with tool calls is followed at once by exactly one tool message per call, in call order,
before any other message. Args shown to the model are the args that ran (``executed_args``)
when the call ran, else the proposal.

:class:`HistoryCache` keeps, per conversation, the model form of its *settled* prefix: the
longest run of messages from the start in which every assistant message's calls all have
their tool message. Such rows never change (messages are only ever added; a call is closed
together with its tool message and stays as it is), so a model step reads only the messages
after the prefix, converts them, and extends the prefix where they have settled: a step's
work no longer grows with the conversation's length. The prefix is checked against storage
on every use: the conversation's ``message_count`` (kept by database triggers on every insert,
delete or move of a message; one read by primary key) must equal the prefix's messages plus
the newer ones read. Any difference (a deleted conversation or message, a row committed late by
another worker) drops the entry and the history is rebuilt from storage, so several workers
sharing one database stay correct. A row committed between the two reads is seen by the next
step's check.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from sqlalchemy import bindparam
from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from interlock.storage import Conversation, Message, MessageRole, ToolCall
from interlock.storage.read_soon import Soon, read_soon
from interlock.tools import ToolRegistry, provider_safe_name

DEFAULT_MAX_CONVERSATIONS = 256


# Prebuilt statements (a model step runs them; building them each time costs more than
# running them on a short tail).
_MESSAGES_AFTER = (
    select(Message)
    .where(Message.conversation_id == bindparam("cid"), col(Message.id) > bindparam("after"))
    .order_by(col(Message.id))
)
_CALLS_AFTER = (
    select(ToolCall)
    .where(
        ToolCall.conversation_id == bindparam("cid"), col(ToolCall.message_id) > bindparam("after")
    )
    .order_by(col(ToolCall.message_id), col(ToolCall.index))
)
_messages = Message.__table__  # type: ignore[attr-defined]
_tool_calls = ToolCall.__table__  # type: ignore[attr-defined]
_MESSAGE_ROWS_AFTER = (
    core_select(
        _messages.c.id,
        _messages.c.role,
        _messages.c.content,
        _messages.c.tool_call_id,
        _messages.c.tool_status,
    )
    .where(_messages.c.conversation_id == bindparam("cid"), _messages.c.id > bindparam("after"))
    .order_by(_messages.c.id)
)
_CALL_ROWS_AFTER = (
    core_select(
        _tool_calls.c.id,
        _tool_calls.c.message_id,
        _tool_calls.c.name,
        _tool_calls.c.proposed_args,
        _tool_calls.c.executed_args,
    )
    .where(
        _tool_calls.c.conversation_id == bindparam("cid"),
        _tool_calls.c.message_id > bindparam("after"),
    )
    .order_by(_tool_calls.c.message_id, _tool_calls.c.index)
)
"""The columns of :data:`_MESSAGES_AFTER` and :data:`_CALLS_AFTER` a model step converts,
read with Core (rows, not ORM objects: the same values, for less CPU)."""
_conversations = Conversation.__table__  # type: ignore[attr-defined]
_MESSAGE_COUNT = core_select(_conversations.c.message_count).where(
    _conversations.c.id == bindparam("cid")
)
"""The conversation's number of messages (none when it is gone)."""


def without_cut_reply(history: list[BaseMessage]) -> list[BaseMessage]:
    """``history`` without a last assistant message that only holds text.

    A model step never starts after a finished answer: such a message ending the history is
    a reply cut short (kept for the person when the server stopped mid-answer), and the run
    going on after the restart must answer the person's message again, not take that cut text
    for the answer.
    """
    last = history[-1] if history else None
    if isinstance(last, AIMessage) and not last.tool_calls:
        return history[:-1]
    return history


def load_history(
    session: Session, conversation_id: str, after_id: int = 0
) -> tuple[list[Message], dict[int, list[ToolCall]]]:
    """Return the conversation's messages in order and tool calls keyed by message id.

    Args:
        session: Open session.
        conversation_id: The conversation.
        after_id: Only messages with a larger id (and their calls); 0 for all.
    """
    params = {"cid": conversation_id, "after": after_id}
    messages = list(session.exec(_MESSAGES_AFTER, params=params).all())
    calls: dict[int, list[ToolCall]] = defaultdict(list)
    for call in session.exec(_CALLS_AFTER, params=params).all():
        calls[call.message_id].append(call)
    return messages, calls


class _StoredMessage(Protocol):
    """What the conversion reads of a message (a :class:`Message` or a row of its columns)."""

    @property
    def id(self) -> int | None: ...
    @property
    def role(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def tool_call_id(self) -> str | None: ...
    @property
    def tool_status(self) -> str | None: ...


class _StoredCall(Protocol):
    """What the conversion reads of a tool call (a :class:`ToolCall` or a row of its columns)."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def proposed_args(self) -> Any: ...
    @property
    def executed_args(self) -> Any: ...


def _history_rows(
    session: Session, conversation_id: str, after_id: int
) -> tuple[list[_StoredMessage], dict[int, list[_StoredCall]]]:
    """:func:`load_history`'s messages and calls as rows of the columns converted."""
    return _rows_read(*_read_rows(session, conversation_id, after_id))


def _read_rows(session: Session, conversation_id: str, after_id: int) -> tuple[Soon, Soon]:
    """The reads of :func:`_history_rows`, queued (:mod:`~interlock.storage.read_soon`)."""
    params = {"cid": conversation_id, "after": after_id}
    return read_soon(session, _MESSAGE_ROWS_AFTER, params), read_soon(
        session, _CALL_ROWS_AFTER, params
    )


def _rows_read(
    messages: Soon, calls: Soon
) -> tuple[list[_StoredMessage], dict[int, list[_StoredCall]]]:
    """What the reads of :func:`_read_rows` returned (sent now if nothing took them yet)."""
    by_message: dict[int, list[_StoredCall]] = defaultdict(list)
    rows = cast(list[_StoredMessage], messages.result().rows)
    for call in calls.result().rows:
        by_message[call.message_id].append(cast(_StoredCall, call))
    return rows, by_message


def to_model_messages(
    messages: list[Message],
    calls: dict[int, list[ToolCall]],
    registry: ToolRegistry,
    system_prompt: str,
) -> list[BaseMessage]:
    """Convert stored messages to LangChain messages for a model call.

    Raises:
        RuntimeError: A tool call has no tool message (the engine never calls the model then).
    """
    return [SystemMessage(system_prompt), *_convert(messages, calls, registry)]


def _convert(
    messages: Sequence[_StoredMessage],
    calls: dict[int, list[ToolCall]] | dict[int, list[_StoredCall]],
    registry: ToolRegistry,
) -> list[BaseMessage]:
    """Model form of ``messages`` (no system message); see :func:`to_model_messages`."""
    tool_messages = {m.tool_call_id: m for m in messages if m.role == MessageRole.tool}
    out: list[BaseMessage] = []
    for message in messages:
        if message.role == MessageRole.user:
            out.append(HumanMessage(message.content))
        elif message.role == MessageRole.assistant:
            assert message.id is not None
            message_calls = calls.get(message.id, [])
            out.append(
                AIMessage(
                    content=message.content,
                    tool_calls=[
                        {
                            "id": call.id,
                            "name": _provider_name(registry, call.name),
                            "args": _shown_args(call),
                            "type": "tool_call",
                        }
                        for call in message_calls
                    ],
                )
            )
            for call in message_calls:
                tool_message = tool_messages.get(call.id)
                if tool_message is None:
                    raise RuntimeError(f"tool call {call.id} has no tool message")
                out.append(
                    ToolMessage(
                        content=tool_message.content,
                        tool_call_id=call.id,
                        status="error" if tool_message.tool_status == "error" else "success",
                    )
                )
    return out


def settled_length(
    messages: Sequence[_StoredMessage],
    calls: dict[int, list[ToolCall]] | dict[int, list[_StoredCall]],
) -> int:
    """Return how many leading ``messages`` are settled.

    A prefix is settled when every assistant message in it has a tool message for each of its
    calls inside the prefix too (so converting the prefix alone gives the same messages as
    converting the whole list).
    """
    open_calls: set[str] = set()
    settled = 0
    for index, message in enumerate(messages):
        if message.role == MessageRole.assistant and message.id is not None:
            open_calls.update(call.id for call in calls.get(message.id, ()))
        elif message.role == MessageRole.tool and message.tool_call_id is not None:
            open_calls.discard(message.tool_call_id)
        if not open_calls:
            settled = index + 1
    return settled


@dataclass(frozen=True)
class HistoryReads:
    """The reads of one :meth:`HistoryCache.model_messages`, queued by
    :meth:`HistoryCache.read`."""

    entry: _Entry | None
    """The cached prefix they read after (None: none, the whole history is read)."""
    count: Soon | None
    """The conversation's ``message_count`` (with a prefix only)."""
    messages: Soon
    calls: Soon


@dataclass(frozen=True)
class _Entry:
    last_id: int
    """Id of the last message of the settled prefix."""
    count: int
    """How many of the conversation's messages have an id up to ``last_id``."""
    messages: tuple[BaseMessage, ...]
    """Model form of the prefix (without the system message)."""


class HistoryCache:
    """Model-form history per conversation, extended step by step (see the module docstring).

    Thread-safe; bounded to ``max_conversations`` entries, least recently used dropped first.

    Args:
        registry: Tool registry (provider names of the calls).
        max_conversations: Conversations kept.
    """

    def __init__(
        self, registry: ToolRegistry, max_conversations: int = DEFAULT_MAX_CONVERSATIONS
    ) -> None:
        self._registry = registry
        self._max = max_conversations
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def read(self, session: Session, conversation_id: str) -> HistoryReads:
        """Queue the reads :meth:`model_messages` needs (:mod:`~interlock.storage.read_soon`):
        they go out with the transaction's next round trip."""
        with self._lock:
            entry = self._entries.get(conversation_id)
        if entry is None:
            return HistoryReads(None, None, *_read_rows(session, conversation_id, 0))
        # The count is read first: a row committed between the two reads makes them differ
        # (after the prefix) or is counted by the next check (under it).
        count = read_soon(session, _MESSAGE_COUNT, {"cid": conversation_id})
        return HistoryReads(entry, count, *_read_rows(session, conversation_id, entry.last_id))

    def model_messages(
        self,
        session: Session,
        conversation_id: str,
        system_prompt: str,
        reads: HistoryReads | None = None,
    ) -> list[BaseMessage]:
        """Return the history for a model call: the system message, then every message.

        Same result as ``to_model_messages(*load_history(session, id), ...)``, reading only
        the messages after the cached prefix. ``reads``: the reads queued by :meth:`read`
        (made here when None).

        Raises:
            RuntimeError: A tool call has no tool message (the engine never calls the model then).
        """
        reads = reads or self.read(session, conversation_id)
        entry = reads.entry
        messages, calls = _rows_read(reads.messages, reads.calls)
        # The prefix is valid when the conversation's ``message_count`` is the prefix's
        # messages plus the rows read after it; else the whole history is read again.
        count = reads.count.result().scalar() if reads.count is not None else None
        if entry is not None and count != entry.count + len(messages):
            entry = None
            messages, calls = _history_rows(session, conversation_id, 0)
        cut = settled_length(messages, calls)
        prefix = entry.messages if entry else ()
        if cut:
            last_id = messages[cut - 1].id
            assert last_id is not None
            prefix = (*prefix, *_convert(messages[:cut], calls, self._registry))
            entry = _Entry(last_id, (entry.count if entry else 0) + cut, prefix)
        if entry is not None:
            with self._lock:
                self._entries[conversation_id] = entry
                self._entries.move_to_end(conversation_id)
                while len(self._entries) > self._max:
                    self._entries.popitem(last=False)
        rest = _convert(messages[cut:], calls, self._registry)
        return [SystemMessage(system_prompt), *prefix, *rest]

    def forget(self, conversation_id: str) -> None:
        """Drop a conversation's entry (e.g. when it is deleted)."""
        with self._lock:
            self._entries.pop(conversation_id, None)


def _shown_args(call: _StoredCall) -> dict[str, object]:
    args = call.executed_args if call.executed_args is not None else call.proposed_args
    return args if isinstance(args, dict) else {}


def _provider_name(registry: ToolRegistry, name: str) -> str:
    tool = registry.get(name)
    return tool.provider_name if tool else provider_safe_name(name)
