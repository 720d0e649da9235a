"""What the built-in models read of a whole conversation, kept from one step to the next.

Each model step of the built-in models reads totals of the whole history: its words (the
step's input-token count), its tool calls so far (the number of the next call id), and its
system messages and the other messages apart (the offline model reads the skills it may load
from the former and plans from the latter). Counted afresh, a step's work grows with the
conversation (issue 7, benchmark b: 800 messages at turn 200).

The engine hands the model the same message objects step after step (its history cache), so
:func:`history_totals` keeps, per conversation, the per-message figures of the messages it
saw last and counts only the messages after the part that is unchanged: every kept message
and its content are compared with the step's, by list comparisons (the same object is equal
at once, with no Python code per message; an equal message has the same totals). A message
whose content is not a string (content blocks, a list that may change in place) and
everything after it is counted afresh every time. Messages are taken not to change in place
otherwise (a message's ``tool_calls`` are not edited once it was given to a model).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter

from langchain_core.messages import AIMessage, BaseMessage, SystemMessage

MAX_HISTORIES = 64
"""Conversations whose figures are kept (least recently used dropped first)."""

_content = attrgetter("content")


@dataclass(frozen=True)
class HistoryTotals:
    """Totals of a model step's messages.

    Attributes:
        words: Words of every message (``len(message.text.split())`` summed).
        tool_calls: Tool calls of every AI message (valid and invalid ones).
        system: The system messages, in order.
        conversation: The other messages, in order.
    """

    words: int
    tool_calls: int
    system: tuple[BaseMessage, ...]
    conversation: Sequence[BaseMessage]


@dataclass
class _Kept:
    """Figures of the messages seen last for one conversation (``words[i]``: up to ``i``)."""

    messages: list[BaseMessage] = field(default_factory=list)
    contents: list[object] = field(default_factory=list)
    words: list[int] = field(default_factory=list)
    calls: list[int] = field(default_factory=list)
    system_at: list[int] = field(default_factory=list)
    """Positions of system messages."""

    def truncate(self, length: int) -> None:
        del self.messages[length:], self.contents[length:]
        del self.words[length:], self.calls[length:]
        self.system_at = [i for i in self.system_at if i < length]


_KEPT: OrderedDict[int, _Kept] = OrderedDict()
"""Figures per conversation, by the id of its first message after the leading system ones
(held by its entry while it has figures, so the id stays its own)."""
_LOCK = threading.Lock()


def _words(message: BaseMessage) -> int:
    return len(message.text.split())


def _calls(message: BaseMessage) -> int:
    if isinstance(message, AIMessage):
        return len(message.tool_calls) + len(message.invalid_tool_calls)
    return 0


def _counted(messages: Sequence[BaseMessage]) -> HistoryTotals:
    """The totals counted message by message (what :func:`history_totals` returns)."""
    system = tuple(m for m in messages if isinstance(m, SystemMessage))
    return HistoryTotals(
        words=sum(_words(m) for m in messages),
        tool_calls=sum(_calls(m) for m in messages),
        system=system,
        conversation=[m for m in messages if not isinstance(m, SystemMessage)],
    )


def history_totals(messages: Sequence[BaseMessage]) -> HistoryTotals:
    """Return the totals of ``messages``, counting only what changed since the last step.

    Args:
        messages: A model step's messages (system messages first, as the engine gives them).

    Returns:
        The same totals as counting every message (see the module docstring).
    """
    lead = 0
    while lead < len(messages) and isinstance(messages[lead], SystemMessage):
        lead += 1
    if lead == len(messages):
        return _counted(messages)
    head, rest = _counted(messages[:lead]), list(messages)[lead:]
    contents = list(map(_content, rest))
    key = id(rest[0])
    with _LOCK:
        kept = _KEPT.get(key)
        if kept is None:
            kept = _KEPT[key] = _Kept()
            while len(_KEPT) > MAX_HISTORIES:
                _KEPT.popitem(last=False)
        else:
            _KEPT.move_to_end(key)
        known = len(kept.messages)
        # Lists compare item by item, the same object first (no Python code for it).
        if known > len(rest) or kept.messages != rest[:known] or kept.contents != contents[:known]:
            kept.truncate(0)
        _extend(kept, rest, contents)
        known = len(kept.messages)
        words, calls = (kept.words[-1], kept.calls[-1]) if known else (0, 0)
        system_at = list(kept.system_at)
    tail = _counted(rest[known:])
    system = head.system + tuple(rest[i] for i in system_at) + tail.system
    conversation = rest if not system_at and not tail.system else _others(rest)
    return HistoryTotals(
        words=head.words + words + tail.words,
        tool_calls=head.tool_calls + calls + tail.tool_calls,
        system=system,
        conversation=conversation,
    )


def _extend(kept: _Kept, rest: list[BaseMessage], contents: list[object]) -> None:
    """Add the figures of the messages of ``rest`` after ``kept``'s, up to the first message
    whose content is not a string."""
    words = kept.words[-1] if kept.words else 0
    calls = kept.calls[-1] if kept.calls else 0
    for position in range(len(kept.messages), len(rest)):
        message, content = rest[position], contents[position]
        if not isinstance(content, str):
            return
        words += _words(message)
        calls += _calls(message)
        if isinstance(message, SystemMessage):
            kept.system_at.append(position)
        kept.messages.append(message)
        kept.contents.append(content)
        kept.words.append(words)
        kept.calls.append(calls)


def _others(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    return [m for m in messages if not isinstance(m, SystemMessage)]
