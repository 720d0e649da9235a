"""Planned replies and the shared streaming machinery of the built-in chat models.

:class:`PlannedReplyChatModel` plans a whole reply (:class:`PlannedReply`: text, then tool
calls) and streams it as word-sized :class:`~langchain_core.messages.AIMessageChunk` pieces
followed by tool calls split into ``tool_call_chunks``, exactly like a real provider, so the
engine's streaming aggregation is exercised end to end. The offline model
(:mod:`interlock.models.offline.model`) and :class:`interlock.models.scripted.ScriptedChatModel`
only decide *what* to say.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from abc import abstractmethod
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.messages.utils import message_chunk_to_message
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field
from typing_extensions import override

from interlock.models.offline.totals import HistoryTotals, history_totals

OFFLINE_MODEL_NAME = "interlock-offline"
"""Model name the offline model reports in ``response_metadata``."""

_TOKEN_RE = re.compile(r"\s+|\S+\s*")


@dataclass(frozen=True)
class PlannedCall:
    """One tool call a model is about to emit.

    Attributes:
        name: Provider-safe tool name (``notes_add``).
        args: Arguments as a dict (sent as JSON) or a raw string sent verbatim, which may be
            malformed (``"{broken"``) or not an object (``"[1,2]"``).
        id: Provider call id; None assigns ``call_<n>`` deterministically.
    """

    name: str
    args: dict[str, Any] | str
    id: str | None = None

    def args_json(self) -> str:
        """Return the arguments as the string that is streamed."""
        if isinstance(self.args, str):
            return self.args
        return json.dumps(self.args, ensure_ascii=False)


@dataclass(frozen=True)
class PlannedReply:
    """What a model says in one step: text first, then tool calls (possibly several).

    Attributes:
        text: Assistant text, streamed word by word.
        calls: Tool calls emitted after the text, in order.
    """

    text: str = ""
    calls: tuple[PlannedCall, ...] = field(default_factory=tuple)


def split_tokens(text: str) -> list[str]:
    """Split text into word-sized pieces whose concatenation is exactly ``text``.

    Args:
        text: Any text.

    Returns:
        Pieces such as ``["Great ", "choice: ", "**Miso**."]``; empty for empty text.
    """
    return _TOKEN_RE.findall(text)


def split_args(args: str) -> list[str]:
    """Split a tool-call argument string into at least two pieces (three when long enough).

    Args:
        args: The JSON (or raw) argument text.

    Returns:
        Pieces whose concatenation is ``args``; the first may be empty for very short strings.
    """
    if len(args) < 2:
        return ["", args]
    if len(args) == 2:
        return [args[0], args[1]]
    a, b = len(args) // 3, (2 * len(args)) // 3
    return [args[:a], args[a:b], args[b:]]


class PlannedReplyChatModel(BaseChatModel):
    """A chat model that plans a whole reply, then streams it like a provider would.

    Subclasses implement :meth:`plan_reply`. Streaming yields one chunk per word of text, then
    for each tool call a first chunk carrying ``id``, ``name`` and the start of the arguments
    and further chunks carrying the rest of the arguments (same ``index``), then a final empty
    chunk (``chunk_position="last"``) with ``finish_reason`` and usage.

    Attributes:
        token_delay_s: Pause between chunks (``asyncio.sleep`` in async streaming).
        first_token_delay_s: Pause before the first chunk.
        bound_tools: OpenAI-format tool specs set by :meth:`bind_tools`.
        tool_choice: ``tool_choice`` given to :meth:`bind_tools` (``"none"`` disables tools).
        tool_titles: Each tool's title by provider-safe name, given to :meth:`bind_tools`
            by the engine (bound or not): the words the model names a tool with.
        action_tools: Provider-safe names of the tools that change things (the ones the
            person's "AI actions" switch turns off), given to :meth:`bind_tools`.
    """

    token_delay_s: float = Field(default=0.0, ge=0)
    first_token_delay_s: float = Field(default=0.0, ge=0)
    bound_tools: tuple[dict[str, Any], ...] = ()
    tool_choice: str | None = None
    tool_titles: dict[str, str] = Field(default_factory=dict)
    action_tools: frozenset[str] = frozenset()

    @property
    def reported_model_name(self) -> str:
        """Model name put in ``response_metadata["model_name"]``."""
        return OFFLINE_MODEL_NAME

    @property
    def bound_tool_names(self) -> tuple[str, ...]:
        """Names of the tools bound with :meth:`bind_tools`, in binding order."""
        names: list[str] = []
        for spec in self.bound_tools:
            function = spec.get("function")
            if isinstance(function, dict) and isinstance(function.get("name"), str):
                names.append(function["name"])
            elif isinstance(spec.get("name"), str):
                names.append(spec["name"])
        return tuple(names)

    def tool_parameters(self, name: str) -> dict[str, Any]:
        """Return the JSON Schema of a bound tool's parameters (``{}`` when unknown).

        Args:
            name: Provider-safe tool name.

        Returns:
            The ``parameters`` object of the bound spec.
        """
        for spec in self.bound_tools:
            function = spec.get("function")
            if isinstance(function, dict) and function.get("name") == name:
                params = function.get("parameters")
                return params if isinstance(params, dict) else {}
        return {}

    @abstractmethod
    def plan_reply(self, messages: Sequence[BaseMessage], totals: HistoryTotals) -> PlannedReply:
        """Decide the reply to a conversation.

        Args:
            messages: The conversation so far.
            totals: Its totals (:func:`history_totals`), counted once per step for the
                reply and its usage figures.

        Returns:
            The text and tool calls to stream.
        """

    @override
    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        tool_titles: Mapping[str, str] | None = None,
        action_tools: Iterable[str] = (),
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Return a copy of this model that knows the given tools.

        Args:
            tools: OpenAI-format dicts (``{"type": "function", "function": {...}}``), LangChain
                tools, pydantic models or functions (converted with ``convert_to_openai_tool``).
            tool_choice: ``"none"`` stops tool calls; other values are accepted and ignored.
            tool_titles: Titles by provider-safe name (:attr:`tool_titles`).
            action_tools: Tools that change things (:attr:`action_tools`).
            **kwargs: Accepted for compatibility with provider models; ignored.

        Returns:
            A copy of this model with :attr:`bound_tools` set.
        """
        specs = tuple(convert_to_openai_tool(t) for t in tools)
        titles = dict(tool_titles or {})
        return self.model_copy(
            update={
                "bound_tools": specs,
                "tool_choice": tool_choice,
                "tool_titles": titles,
                "action_tools": frozenset(action_tools),
            }
        )

    # -- chunk building ------------------------------------------------------------------

    def _build_chunks(self, messages: Sequence[BaseMessage]) -> list[AIMessageChunk]:
        totals = history_totals(messages)
        reply = self.plan_reply(messages, totals)
        chunks = [AIMessageChunk(content=token) for token in split_tokens(reply.text)]
        first_number = totals.tool_calls + 1
        for index, call in enumerate(reply.calls):
            call_id = call.id or f"call_{first_number + index}"
            for piece_no, piece in enumerate(split_args(call.args_json())):
                first = piece_no == 0
                chunks.append(
                    AIMessageChunk(
                        content="",
                        tool_call_chunks=[
                            tool_call_chunk(
                                name=call.name if first else None,
                                args=piece,
                                id=call_id if first else None,
                                index=index,
                            )
                        ],
                    )
                )
        output_tokens = len(chunks)
        input_tokens = totals.words
        usage: UsageMetadata = {
            "input_tokens": input_tokens,
            "output_tokens": output_tokens,
            "total_tokens": input_tokens + output_tokens,
        }
        chunks.append(
            AIMessageChunk(
                content="",
                chunk_position="last",
                response_metadata={
                    "model_name": self.reported_model_name,
                    "finish_reason": "tool_calls" if reply.calls else "stop",
                },
                usage_metadata=usage,
            )
        )
        return chunks

    def _delay_before(self, position: int) -> float:
        return self.first_token_delay_s if position == 0 else self.token_delay_s

    # -- BaseChatModel hooks -------------------------------------------------------------

    @override
    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        merged = reduce(lambda a, b: a + b, self._build_chunks(messages))
        message = message_chunk_to_message(merged)
        return ChatResult(generations=[ChatGeneration(message=message)])

    @override
    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return self._generate(messages, stop, **kwargs)

    @override
    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for position, chunk in enumerate(self._build_chunks(messages)):
            delay = self._delay_before(position)
            if delay > 0:
                time.sleep(delay)
            yield ChatGenerationChunk(message=chunk)

    @override
    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for position, chunk in enumerate(self._build_chunks(messages)):
            delay = self._delay_before(position)
            if delay > 0:
                await asyncio.sleep(delay)
            yield ChatGenerationChunk(message=chunk)

    @property
    @override
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.reported_model_name, "tools": list(self.bound_tool_names)}
