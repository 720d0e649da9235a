"""A scripted chat model: a test and scripting aid that replays fixed replies.

Not for production use. :class:`ScriptedChatModel` returns the given replies in order, one per
model call, and streams each one exactly like :class:`~interlock.models.offline.OfflineChatModel`
(word-sized text chunks, then ``tool_call_chunks`` with the arguments split across chunks), so
engine tests can drive any sequence of tool calls, including malformed ones::

    from langchain_core.messages import AIMessage
    from interlock.models import ScriptedChatModel, scripted_message

    model = ScriptedChatModel(
        responses=[
            AIMessage(content="", tool_calls=[{"name": "notes_add", "args": {"text": "x"},
                                                "id": "call_1"}]),
            scripted_message("Let me try.", ("notes_add", "{broken"), ("notes_add", "[1,2]")),
            "All done.",
        ]
    )

A ``str`` reply is plain text. An :class:`~langchain_core.messages.AIMessage` reply streams its
text, then its ``tool_calls`` (args sent as JSON), then its ``invalid_tool_calls`` (args sent as
the raw string, so ``"{broken"`` or ``"[1,2]"`` reach the consumer unchanged). Calls without an
id get ``call_<n>`` like the offline model. Tool names are not checked against bound tools, so
unknown tools can be scripted too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.messages.tool import invalid_tool_call, tool_call
from pydantic import PrivateAttr
from typing_extensions import override

from interlock.models.offline import PlannedCall, PlannedReply, PlannedReplyChatModel
from interlock.models.offline.totals import HistoryTotals

SCRIPTED_MODEL_NAME = "interlock-scripted"
"""Model name the scripted model reports in ``response_metadata``."""


class ScriptExhaustedError(RuntimeError):
    """Raised when a :class:`ScriptedChatModel` is called more times than it has replies."""


@dataclass
class _ScriptState:
    """Shared by a model and every copy made by ``bind_tools``."""

    replies: list[PlannedReply]
    position: int = 0
    received: list[list[BaseMessage]] = field(default_factory=list)
    bound: list[tuple[str, ...]] = field(default_factory=list)


def _to_planned(response: AIMessage | str) -> PlannedReply:
    if isinstance(response, str):
        return PlannedReply(response)
    calls = [PlannedCall(c["name"], dict(c["args"]), c["id"] or None) for c in response.tool_calls]
    calls += [
        PlannedCall(c["name"] or "", c["args"] or "", c["id"] or None)
        for c in response.invalid_tool_calls
    ]
    return PlannedReply(response.text, tuple(calls))


def scripted_message(content: str = "", *calls: tuple[Any, ...]) -> AIMessage:
    """Build an :class:`AIMessage` for a script from ``(name, args[, id])`` tuples.

    Dict arguments become ``tool_calls``; string arguments become ``invalid_tool_calls`` and
    are streamed verbatim (use them for malformed JSON such as ``"{broken"`` or ``"[1,2]"``).
    Streaming order is: text, dict-argument calls, then string-argument calls.

    Args:
        content: Assistant text streamed before the calls.
        *calls: ``(name, args)`` or ``(name, args, id)``.

    Returns:
        The message to put in ``ScriptedChatModel(responses=[...])``.

    Raises:
        ValueError: If a tuple is not ``(name, args)`` or ``(name, args, id)``.
    """
    valid = []
    invalid = []
    for call in calls:
        if len(call) not in (2, 3):
            raise ValueError("each call must be (name, args) or (name, args, id)")
        name, args = str(call[0]), call[1]
        call_id = str(call[2]) if len(call) == 3 else None
        if isinstance(args, str):
            invalid.append(invalid_tool_call(name=name, args=args, id=call_id, error=None))
        else:
            valid.append(tool_call(name=name, args=dict(args), id=call_id))
    return AIMessage(content=content, tool_calls=valid, invalid_tool_calls=invalid)


class ScriptedChatModel(PlannedReplyChatModel):
    """Test/scripting aid: replays a fixed list of replies, streamed like the offline model.

    Each model call (stream or invoke) consumes the next reply; copies made by
    :meth:`bind_tools` share the same position, so an engine that binds tools on every step
    still walks through the script in order. When the script runs out,
    :class:`ScriptExhaustedError` is raised.

    Args:
        responses: Replies in order: ``str`` (text only) or ``AIMessage`` (text and tool calls;
            see :func:`scripted_message` for raw/malformed arguments).
        token_delay_s: Pause between streamed chunks.
        first_token_delay_s: Pause before the first chunk.

    Attributes:
        received: The message lists the model was called with, in order.
        calls_made: Number of replies consumed so far.
    """

    _state: _ScriptState = PrivateAttr()

    def __init__(self, responses: Sequence[AIMessage | str], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._state = _ScriptState(replies=[_to_planned(r) for r in responses])

    @property
    @override
    def _llm_type(self) -> str:
        return SCRIPTED_MODEL_NAME

    @property
    @override
    def reported_model_name(self) -> str:
        """Model name put in ``response_metadata["model_name"]``."""
        return SCRIPTED_MODEL_NAME

    @property
    def received(self) -> list[list[BaseMessage]]:
        """The message lists the model was called with, in order."""
        return self._state.received

    @property
    def bound_tool_names_seen(self) -> list[tuple[str, ...]]:
        """The bound tool names at each call, in order."""
        return self._state.bound

    @property
    def calls_made(self) -> int:
        """Number of replies consumed so far."""
        return self._state.position

    @property
    def remaining(self) -> int:
        """Number of replies not yet consumed."""
        return len(self._state.replies) - self._state.position

    @override
    def plan_reply(self, messages: Sequence[BaseMessage], totals: HistoryTotals) -> PlannedReply:
        """Return the next scripted reply.

        Args:
            messages: The conversation (recorded in :attr:`received`).
            totals: Not read.

        Returns:
            The next reply.

        Raises:
            ScriptExhaustedError: If every reply has been used.
        """
        state = self._state
        state.received.append(list(messages))
        state.bound.append(self.bound_tool_names)
        if state.position >= len(state.replies):
            raise ScriptExhaustedError(
                f"ScriptedChatModel has no reply left (it had {len(state.replies)}, "
                f"this is call {state.position + 1})"
            )
        reply = state.replies[state.position]
        state.position += 1
        return reply
