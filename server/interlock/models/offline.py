"""The built-in offline chat model: deterministic, no API key, streams token by token.

:class:`OfflineChatModel` answers a small set of requests (ideas, notes) by reading the
conversation, so Interlock can be tried and tested without a provider. It streams its answer as
word-sized :class:`~langchain_core.messages.AIMessageChunk` pieces followed by tool calls split
into ``tool_call_chunks``, exactly like a real provider, so the engine's streaming aggregation
is exercised end to end.

:class:`PlannedReplyChatModel` is the shared streaming machinery; :class:`OfflineChatModel` and
:class:`interlock.models.scripted.ScriptedChatModel` only decide *what* to say.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from abc import abstractmethod
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import reduce
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.messages.ai import UsageMetadata
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.messages.utils import message_chunk_to_message
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field
from typing_extensions import override

OFFLINE_MODEL_NAME = "interlock-offline"
"""Model name the offline model reports in ``response_metadata``."""

OFFLINE_DISPLAY_NAME = "interlock-offline (built-in, no API key)"
"""Name shown to people (``describe_model``) when the offline model answers."""

# Provider-safe names of the built-in tools the offline model knows how to call.
SUGGESTIONS = "suggestions"
NOTES_LIST = "notes_list"
NOTES_ADD = "notes_add"
NOTES_DELETE = "notes_delete"

_TOKEN_RE = re.compile(r"\s+|\S+\s*")


# --------------------------------------------------------------------------------------------
# Planned replies and the shared streaming machinery
# --------------------------------------------------------------------------------------------


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


def _count_words(messages: Sequence[BaseMessage]) -> int:
    return sum(len(m.text.split()) for m in messages)


def _prior_tool_call_count(messages: Sequence[BaseMessage]) -> int:
    return sum(
        len(m.tool_calls) + len(m.invalid_tool_calls) for m in messages if isinstance(m, AIMessage)
    )


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
    """

    token_delay_s: float = Field(default=0.0, ge=0)
    first_token_delay_s: float = Field(default=0.0, ge=0)
    bound_tools: tuple[dict[str, Any], ...] = ()
    tool_choice: str | None = None

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
    def plan_reply(self, messages: Sequence[BaseMessage]) -> PlannedReply:
        """Decide the reply to a conversation.

        Args:
            messages: The conversation so far.

        Returns:
            The text and tool calls to stream.
        """

    @override
    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Return a copy of this model that knows the given tools.

        Args:
            tools: OpenAI-format dicts (``{"type": "function", "function": {...}}``), LangChain
                tools, pydantic models or functions (converted with ``convert_to_openai_tool``).
            tool_choice: ``"none"`` stops tool calls; other values are accepted and ignored.
            **kwargs: Accepted for compatibility with provider models; ignored.

        Returns:
            A copy of this model with :attr:`bound_tools` set.
        """
        specs = tuple(convert_to_openai_tool(t) for t in tools)
        return self.model_copy(update={"bound_tools": specs, "tool_choice": tool_choice})

    # -- chunk building ------------------------------------------------------------------

    def _build_chunks(self, messages: Sequence[BaseMessage]) -> list[AIMessageChunk]:
        reply = self.plan_reply(messages)
        chunks = [AIMessageChunk(content=token) for token in split_tokens(reply.text)]
        first_number = _prior_tool_call_count(messages) + 1
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
        input_tokens = _count_words(messages)
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


# --------------------------------------------------------------------------------------------
# Understanding requests
# --------------------------------------------------------------------------------------------

IntentKind = Literal["suggest", "add", "delete_id", "delete_text", "list", "long", "help", "ask"]


@dataclass(frozen=True)
class Intent:
    """One thing the person asked for (``text``: note text or request; ``note_id``: a number)."""

    kind: IntentKind
    text: str = ""
    note_id: int = 0


_FLAGS = re.IGNORECASE | re.DOTALL
_POLITE_RE = re.compile(
    r"^(?:(?:please|hey|hi|ok(?:ay)?|so|now|and|can you|could you|would you|will you|"
    r"i want you to|i'd like you to)\b[\s,!:]*)+",
    re.IGNORECASE,
)
_LONG_RE = re.compile(
    r"\blong\s+(?:answer|story|text|reply|response|essay)\b|\bwrite\s+(?:me\s+)?(?:a\s+)?long\b",
    _FLAGS,
)
_DELETE_ID_RE = re.compile(
    r"\b(?:delete|remove)\s+(?:the\s+|my\s+)?note\s*(?:number\s*|no\.?\s*)?#?(\d+)"
    r"(?:\s*(?:please)?)?\s*[.!?]*\s*$",
    _FLAGS,
)
_DELETE_TEXT_RE = re.compile(
    r"\b(?:delete|remove)\s+(?:the\s+|my\s+)?note\b\s*(?:about|called|saying|that says|with|:)?"
    r"\s*(.*)$",
    _FLAGS,
)
_ADD_RE = re.compile(
    r"\badd\s+(?:a\s+|an\s+|another\s+|the\s+|new\s+|one more\s+)?note\b[\s:,-]*"
    r"(?:saying|that says|to say|with the text|with|:)?\s*(.*)$",
    _FLAGS,
)
_NOTE_COLON_RE = re.compile(r"\bnote\s*:\s*(.*)$", _FLAGS)
_REMEMBER_RE = re.compile(r"\bremember\b(?:\s+that)?\s*(.*)$", _FLAGS)
_LIST_RE = re.compile(
    r"\b(?:what|which|list|show|see|view)\b(?:\s+(?:me|my|all|the|of|are|do|did|i|have|"
    r"current|saved))*\s+notes?\b",
    _FLAGS,
)
_SUGGEST_RE = re.compile(
    r"\b(?:ideas?|suggest\w*|names|a\s+name|name\s+for|options|help\s+me\s+(?:choose|pick|decide)|"
    r"pick|choose|recommend\w*)\b",
    _FLAGS,
)
_COMPOUND_SPLIT_RE = re.compile(
    r"\s*(?:,\s*)?\b(?:and(?:\s+then)?|then)\b\s+(?=(?:please\s+)?(?:add|delete|remove|remember|"
    r"list|show)\b)|\s*[;,]\s*(?=(?:please\s+)?(?:add|delete|remove|remember)\b)",
    re.IGNORECASE,
)


def _clean_note_text(text: str) -> str:
    text = text.strip()
    quotes = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»"}  # noqa: RUF001
    if len(text) >= 2 and text[0] in quotes and text[-1] == quotes[text[0]]:
        text = text[1:-1].strip()
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1].rstrip()
    return text


def _parse_command(text: str, *, anchored: bool) -> Intent | None:
    def hit(pattern: re.Pattern[str]) -> re.Match[str] | None:
        found = pattern.search(text)
        if found is None or (anchored and found.start() != 0):
            return None
        return found

    if hit(_LONG_RE):
        return Intent("long")
    if found := hit(_DELETE_ID_RE):
        return Intent("delete_id", note_id=int(found.group(1)))
    if found := hit(_DELETE_TEXT_RE):
        target = _clean_note_text(found.group(1))
        return Intent("delete_text", text=target) if target else Intent("ask", "delete")
    if found := hit(_ADD_RE) or hit(_NOTE_COLON_RE) or hit(_REMEMBER_RE):
        note = _clean_note_text(found.group(1))
        return Intent("add", text=note) if note else Intent("ask", "add")
    if hit(_LIST_RE):
        return Intent("list")
    if not anchored and _SUGGEST_RE.search(text):
        return Intent("suggest", text=text.strip())
    return None


def parse_request(text: str) -> list[Intent]:
    """Read a person's message into one or more intents (several for compound note commands).

    Args:
        text: The latest human message.

    Returns:
        Intents in the order they were asked; ``[help]`` when nothing is recognised.
    """
    stripped = _POLITE_RE.sub("", text.strip())
    parts = [p for p in _COMPOUND_SPLIT_RE.split(stripped) if p.strip()]
    if len(parts) > 1:
        intents = [_parse_command(_POLITE_RE.sub("", p.strip()), anchored=True) for p in parts]
        if all(i is not None and i.kind not in {"long", "suggest"} for i in intents):
            return [i for i in intents if i is not None]
    for anchored in (True, False):
        intent = _parse_command(stripped, anchored=anchored)
        if intent is not None:
            return [intent]
    return [Intent("help")]


# --------------------------------------------------------------------------------------------
# Suggestions
# --------------------------------------------------------------------------------------------

_SUGGESTION_TOPICS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        r"\bname\b.*\b(?:cat|kitten|kitty)\b|\b(?:cat|kitten|kitty)\b.*\bname",
        ("Miso", "Pixel", "Juniper", "Biscuit"),
        "Which name do you like for your cat?",
    ),
    (
        r"\bname\b.*\b(?:dog|puppy|pup)\b|\b(?:dog|puppy|pup)\b.*\bname",
        ("Maple", "Rocket", "Pepper", "Scout"),
        "Which name do you like for your dog?",
    ),
    (
        r"\bname\b.*\b(?:pet|fish|bird|hamster|rabbit|bunny|turtle|parrot)\b",
        ("Nugget", "Comet", "Pebble", "Olive"),
        "Which name do you like for your pet?",
    ),
    (
        r"\bname\b.*\b(?:project|app|company|startup|product|team|business|band|repo|tool|"
        r"service|shop|brand|podcast|blog)\b",
        ("Northwind", "Lumen", "Keystone", "Tidepool"),
        "Which name do you like best?",
    ),
    (
        r"\bnames?\b",
        ("Aurora", "Quill", "Harbor", "Sprout"),
        "Which name do you like best?",
    ),
    (
        r"\b(?:dinner|lunch|breakfast|meal|cook|recipe|eat|food|supper)\b",
        ("Lemon garlic pasta", "Chickpea curry", "Sheet-pan tacos", "Miso soup with rice"),
        "What sounds good to eat?",
    ),
    (
        r"\b(?:gift|present|birthday)\b",
        ("A good book", "A potted plant", "Concert tickets", "A handwritten letter"),
        "Which gift idea do you like?",
    ),
    (
        r"\b(?:trip|travel|vacation|holiday|weekend|getaway|visit)\b",
        ("Lisbon", "Kyoto", "A quiet coastal town", "A mountain cabin"),
        "Where would you like to go?",
    ),
    (
        r"\b(?:colou?rs?|paint)\b",
        ("Teal", "Terracotta", "Sage green", "Navy blue"),
        "Which colour do you like?",
    ),
    (
        r"\b(?:books?|read|novel)\b",
        ("Piranesi", "Project Hail Mary", "A Wizard of Earthsea", "The Left Hand of Darkness"),
        "Which book would you like to read?",
    ),
    (
        r"\b(?:movies?|films?|watch)\b",
        ("Spirited Away", "Arrival", "Paddington 2", "The Grand Budapest Hotel"),
        "Which one would you like to watch?",
    ),
)

_BETWEEN_RE = re.compile(
    r"(?:\b(?:between|among|(?:choose|pick)\s+from)\b\s*:?|\b(?:choose|pick|decide)\s*:)\s*(.+)$",
    re.IGNORECASE | re.DOTALL,
)
_TOPIC_RE = re.compile(r"\b(?:for|about|on|choose|pick|with)\b\s+(.+)$", re.IGNORECASE)
_LEADING_WORDS_RE = re.compile(r"^(?:(?:a|an|the|my|our|some|me|new|good|few)\s+)+", re.IGNORECASE)


def _listed_options(request: str) -> list[str]:
    """Options the person listed themselves ("help me choose between tea, coffee or juice")."""
    found = _BETWEEN_RE.search(request)
    if not found:
        return []
    pieces = re.split(r"\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+", found.group(1))
    items = [_clean_note_text(piece).strip(" ?!") for piece in pieces]
    items = [item for item in items if item]
    return items[:4] if len(items) >= 2 else []


def suggestion_options(request: str) -> tuple[list[str], str]:
    """Derive 3-4 deterministic options and a question from a request for ideas.

    Args:
        request: The person's message.

    Returns:
        ``(options, question)``, e.g. ``(["Miso", "Pixel", "Juniper", "Biscuit"], "Which...")``
        for "ideas for a name for my cat".
    """
    listed = _listed_options(request)
    if listed:
        return listed, "Which one do you choose?"
    for pattern, options, question in _SUGGESTION_TOPICS:
        if re.search(pattern, request, re.IGNORECASE | re.DOTALL):
            return list(options), question
    topic_match = _TOPIC_RE.search(request)
    topic = topic_match.group(1) if topic_match else ""
    topic = _LEADING_WORDS_RE.sub("", topic.strip(" ?!.")).strip() or "option"
    styles = ["Classic", "Modern", "Budget-friendly", "Bold", "Minimalist", "Playful"]
    start = int(hashlib.sha256(topic.lower().encode()).hexdigest(), 16) % len(styles)
    picked = [styles[(start + k) % len(styles)] for k in range(4)]
    return [f"{style} {topic}" for style in picked], "Which one do you prefer?"


def _first_key(
    props: dict[str, Any], preferred: Sequence[str], json_type: str | None = None
) -> str | None:
    for key in preferred:
        if key in props:
            return key
    if json_type is not None:
        for key, schema in props.items():
            if isinstance(schema, dict) and schema.get("type") == json_type:
                return key
    return None


def suggestion_args(
    options: list[str], question: str, parameters: dict[str, Any]
) -> dict[str, Any]:
    """Shape suggestion options to the bound tool's schema.

    Without a usable schema the arguments are ``{"question": ..., "options": [...]}``. With
    one, the array property (``options``/``choices``/``suggestions`` or the first array) gets the
    options, as strings or as ``{"label": ...}`` objects when its items are objects, and a
    string property (``question``/``prompt``/``title``) gets the question.

    Args:
        options: The option labels.
        question: The question shown above the options.
        parameters: The bound tool's parameters schema, ``{}`` when unknown.

    Returns:
        The arguments object.
    """
    props = parameters.get("properties")
    if not isinstance(props, dict) or not props:
        return {"question": question, "options": options}
    list_key = _first_key(props, ("options", "choices", "suggestions", "items"), "array")
    if list_key is None:
        return {"question": question, "options": options}
    list_schema = props[list_key] if isinstance(props[list_key], dict) else {}
    items_schema = list_schema.get("items")
    max_items = list_schema.get("maxItems")
    if isinstance(max_items, int) and max_items > 0:
        options = options[:max_items]
    values: list[Any] = list(options)
    if isinstance(items_schema, dict) and items_schema.get("type") == "object":
        item_props = items_schema.get("properties")
        label_key = "label"
        if isinstance(item_props, dict) and item_props:
            label_key = (
                _first_key(item_props, ("label", "title", "name", "text", "value"), "string")
                or label_key
            )
        values = [{label_key: option} for option in options]
    args: dict[str, Any] = {list_key: values}
    question_key = _first_key(props, ("question", "prompt", "title", "message", "text"))
    if question_key is not None and question_key != list_key:
        args[question_key] = question
    return args


# --------------------------------------------------------------------------------------------
# Reading tool results
# --------------------------------------------------------------------------------------------

_CHOSE_RE = re.compile(r"^\s*The person chose:\s*(.+)", re.IGNORECASE)
_REJECTED_RE = re.compile(
    r"^\s*Rejected by the person:\s*(.*?)(?:\.\s*They declined this call.*)?$", re.DOTALL
)
_ERROR_RE = re.compile(r"^\s*Error \[([A-Za-z0-9_.-]+)\]:\s*(.*)$", re.DOTALL)
_CANCELLED_RE = re.compile(r"^\s*Cancelled:\s*(.*?)\.?\s*$", re.DOTALL)
_NOTE_DONE_RE = re.compile(r"^(Added|Deleted) note #(\d+):\s*(.*?)\s*$", re.DOTALL)
_NOTE_LINE_RE = re.compile(r"#(\d+)\s*[:.)\-]?\s*(.+?)\s*$")


def parse_note_lines(text: str) -> list[tuple[int, str]]:
    """Parse a notes listing (lines like ``#3: buy milk``) into ``(id, text)`` pairs.

    Args:
        text: The ``notes_list`` tool result.

    Returns:
        The notes in listing order.
    """
    notes: list[tuple[int, str]] = []
    for line in text.splitlines():
        found = _NOTE_LINE_RE.search(line)
        if found:
            notes.append((int(found.group(1)), found.group(2)))
    return notes


def _normalise(text: str) -> str:
    return " ".join(_clean_note_text(text).casefold().split())


def _with_stop(text: str) -> str:
    text = text.strip()
    return text if not text or text[-1] in ".!?" else text + "."


def _action(name: str, args: dict[str, Any]) -> str:
    if name == NOTES_DELETE:
        return "delete the note"
    if name == NOTES_ADD:
        return "add the note"
    if name == NOTES_LIST:
        return "list your notes"
    if name == SUGGESTIONS:
        return "go ahead with those suggestions"
    return f"run `{name}`"


def _describe_rejection(name: str, args: dict[str, Any], content: str) -> str:
    found = _REJECTED_RE.match(content)
    reason = found.group(1).strip() if found else content.strip()
    text = f"Understood — I did not {_action(name, args)}."
    if reason and reason.casefold() != "no reason given":
        text += f" You said: {_with_stop(reason)}"
    else:
        text += " You did not give a reason."
    return text + " Nothing was done."


def _describe_error(name: str, args: dict[str, Any], content: str) -> str:
    found = _ERROR_RE.match(content)
    if not found:
        return f"Sorry — I could not {_action(name, args)}: {_with_stop(content)}"
    code, rest = found.group(1), found.group(2).strip()
    message, _, hint = rest.partition(" Hint: ")
    text = f"Sorry — I could not {_action(name, args)} (error `{code}`): {_with_stop(message)}"
    if hint.strip():
        text += f" Hint: {_with_stop(hint)}"
    return text


def _describe_success(name: str, args: dict[str, Any], content: str) -> str:
    content = content.strip()
    if name == SUGGESTIONS:
        found = _CHOSE_RE.match(content)
        if found:
            choice = found.group(1).splitlines()[0].strip()
            if choice.endswith(".") and not choice.endswith(".."):
                choice = choice[:-1]
            return f"Great choice: **{choice}**. Let me know if you would like more ideas."
        return f"Thanks — you answered: {_with_stop(content)}" if content else "Thanks!"
    if name in (NOTES_ADD, NOTES_DELETE):
        verb = "added" if name == NOTES_ADD else "deleted"
        found = _NOTE_DONE_RE.match(content)
        if found:
            return f"Done — I {verb} note #{found.group(2)}: “{found.group(3)}”."
        note = args.get("text") if name == NOTES_ADD else args.get("id")
        if note is None:
            text = "Done."
        elif name == NOTES_ADD:
            text = f"Done — I added the note “{note}”."
        else:
            text = f"Done — I deleted note #{note}."
        return f"{text}\n\n{content}" if content else text
    if name == NOTES_LIST:
        if not content or not parse_note_lines(content):
            return content or "You do not have any notes yet."
        return f"Here are your notes:\n\n{content}"
    if not content:
        return f"`{name}` finished with no output."
    return f"`{name}` returned:\n\n{content}"


def _describe_result(name: str, args: dict[str, Any], message: ToolMessage) -> str:
    content = message.text
    if content.lstrip().startswith("Rejected by the person:"):
        return _describe_rejection(name, args, content)
    if content.lstrip().startswith("Error ["):
        return _describe_error(name, args, content)
    if content.lstrip().startswith("Cancelled:"):
        found = _CANCELLED_RE.match(content)
        reason = found.group(1).strip() if found else ""
        why = f" ({reason})" if reason else ""
        return f"The request to {_action(name, args)} was cancelled{why}. Nothing was done."
    if message.status == "error":
        return f"Sorry — I could not {_action(name, args)}: {_with_stop(content)}"
    return _describe_success(name, args, content)


# --------------------------------------------------------------------------------------------
# Fixed texts
# --------------------------------------------------------------------------------------------

HELP_TEXT = (
    "Hi! I'm **interlock-offline**, the built-in offline model: no API key, no network, and I "
    "only understand a few kinds of requests. Try one of these:\n\n"
    "- “ideas for a name for my cat” (I suggest options and you pick one)\n"
    "- “add a note buy milk” or “remember to call Sam”\n"
    "- “what notes do I have?”\n"
    "- “delete note 2” or “delete note buy milk”\n"
    "- “add a note water the plants and delete note 1” (two calls at once)\n"
    "- “write a long answer” (a long streamed reply)\n\n"
    "Anything that changes your notes waits for your approval. To chat with a real model, set "
    "`INTERLOCK_MODEL` (for example `openai:gpt-4o-mini`)."
)

_LONG_PARAGRAPHS = (
    "Interlock lets you work with AI employees that ask before they act. Every time an "
    "employee wants to do something that changes your data, such as adding or deleting a note, "
    "the run pauses and shows you a card with the exact arguments it proposes. You can approve "
    "the call as it is, edit the arguments first, reject it with a reason, or answer in your own "
    "words. Nothing happens behind your back, and every decision is stored with the "
    "conversation so you can see later who decided what and when.",
    "This answer is deliberately long so that streaming can be watched and tested. The offline "
    "model sends it one word at a time, exactly the way a hosted model streams tokens over the "
    "network. The server turns each piece into a message delta event with its own sequence "
    "number, so a browser that reconnects in the middle of the answer can ask for everything "
    "after the last event it saw and continue without losing or repeating a single word.",
    "Because the offline model is deterministic, the same conversation always produces the same "
    "reply, the same tool calls and the same call identifiers. That makes it a dependable "
    "partner for automated tests: a test can send a message, wait for the run to pause, approve "
    "or reject the pending call, and then check the final answer word for word. When you are "
    "ready for real conversations, point Interlock at any LangChain chat model instead.",
    "Configuration is a single setting. Set the model to a provider and a model name separated "
    "by a colon, for example openai followed by a model such as gpt-4o-mini, anthropic with a "
    "Claude model, or ollama with a local model like llama3.1. An OpenAI-compatible server such "
    "as vLLM, llama.cpp or LM Studio works too: give its base URL and, if it needs one, an API "
    "key. The tools, approvals, streaming and storage stay exactly the same whichever model "
    "answers, which is the whole point of keeping the model behind one small contract.",
)

LONG_TEXT = "\n\n".join(
    f"**Part {number}.** {paragraph}" for number, paragraph in enumerate(_LONG_PARAGRAPHS, 1)
)
"""The deterministic long answer (well over 300 streamed tokens) for "write a long answer"."""


# --------------------------------------------------------------------------------------------
# The offline model
# --------------------------------------------------------------------------------------------


def _last_human_text(messages: Sequence[BaseMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message.text
    return ""


def _trailing_tool_turn(
    messages: Sequence[BaseMessage],
) -> tuple[AIMessage | None, list[ToolMessage]]:
    """Return the AI message whose calls the trailing tool messages answer, and those messages."""
    results: list[ToolMessage] = []
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            results.insert(0, message)
            continue
        if results and isinstance(message, AIMessage):
            return message, results
        break
    return None, results


class OfflineChatModel(PlannedReplyChatModel):
    """Interlock's built-in, deterministic, labelled-offline chat model.

    It reads the conversation and answers a few request kinds, calling only tools that are
    bound (built-ins ``suggestions``, ``notes_list``, ``notes_add``, ``notes_delete``):

    * after tool results (the trailing tool messages): a choice (``The person chose: X``) gets
      "Great choice: **X**."; a rejection quotes the reason and says nothing was done; an
      ``Error [code]: ...`` is explained; a note listing that answers "delete note <text>" leads
      to ``notes_delete`` with the matching id (or says no note matched); anything else is
      summarised;
    * otherwise, from the last human message (case-insensitive): ideas / suggestions / names /
      options / "help me choose" / "pick" → ``suggestions`` with 3-4 options; "add a note X",
      "note: X", "remember X" → ``notes_add``; "delete note 3" → ``notes_delete``; "delete note
      buy milk" → ``notes_list`` first; "what/list/show notes" → ``notes_list``; "write a long
      answer" / "long story" → a long text; "add a note X and delete note N" → two parallel
      calls; anything else → what it can do.

    Call ids are ``call_<n>``, numbered after the tool calls already in the history.

    Args:
        token_delay_s: Pause between streamed chunks.
        first_token_delay_s: Pause before the first chunk.
    """

    @property
    @override
    def _llm_type(self) -> str:
        return OFFLINE_MODEL_NAME

    def _tools_enabled(self) -> set[str]:
        return set() if self.tool_choice == "none" else set(self.bound_tool_names)

    def _unavailable(self, name: str) -> str:
        return (
            f"I would use the `{name}` tool for that, but it is not available in this "
            "conversation, so I cannot do it here."
        )

    @override
    def plan_reply(self, messages: Sequence[BaseMessage]) -> PlannedReply:
        """Decide the reply from the conversation (see the class docstring).

        Args:
            messages: The conversation so far.

        Returns:
            The planned text and tool calls.
        """
        conversation = [m for m in messages if not isinstance(m, SystemMessage)]
        ai_message, results = _trailing_tool_turn(conversation)
        if results:
            return self._after_results(conversation, ai_message, results)
        if not conversation:
            return PlannedReply(HELP_TEXT)
        if not isinstance(conversation[-1], HumanMessage):
            return PlannedReply("I have nothing to add yet — tell me what you would like to do.")
        return self._for_request(conversation[-1].text)

    # -- new requests --------------------------------------------------------------------

    def _for_request(self, request: str) -> PlannedReply:
        intents = parse_request(request)
        if len(intents) > 1:
            return self._compound(intents)
        intent = intents[0]
        if intent.kind == "long":
            return PlannedReply(LONG_TEXT)
        if intent.kind == "help":
            return PlannedReply(HELP_TEXT)
        if intent.kind == "ask":
            return PlannedReply(
                "Which note should I delete? Give its number (“delete note 2”) or its text."
                if intent.text == "delete"
                else "What should the note say? For example: “add a note buy milk”."
            )
        lead, call = self._call_for(intent)
        if call.name not in self._tools_enabled():
            return PlannedReply(self._unavailable(call.name))
        return PlannedReply(lead, (call,))

    def _call_for(self, intent: Intent) -> tuple[str, PlannedCall]:
        if intent.kind == "suggest":
            options, question = suggestion_options(intent.text)
            args = suggestion_args(options, question, self.tool_parameters(SUGGESTIONS))
            return "Here are a few ideas — pick the one you like.", PlannedCall(SUGGESTIONS, args)
        if intent.kind == "add":
            return "I'll add that note.", PlannedCall(NOTES_ADD, {"text": intent.text})
        if intent.kind == "delete_id":
            return (
                f"I'll delete note #{intent.note_id}.",
                PlannedCall(NOTES_DELETE, {"id": intent.note_id}),
            )
        if intent.kind == "delete_text":
            return (
                f"Let me find the note “{intent.text}” first.",
                PlannedCall(NOTES_LIST, {}),
            )
        return "Here are your notes.", PlannedCall(NOTES_LIST, {})

    def _compound(self, intents: list[Intent]) -> PlannedReply:
        leads: list[str] = []
        calls: list[PlannedCall] = []
        missing: list[str] = []
        for intent in intents:
            if intent.kind == "ask":
                continue
            lead, call = self._call_for(intent)
            if call.name in self._tools_enabled():
                leads.append(lead)
                calls.append(call)
            elif call.name not in missing:
                missing.append(call.name)
        text = " ".join(leads)
        if missing:
            names = ", ".join(f"`{n}`" for n in missing)
            text = f"{text} (I cannot use {names} in this conversation.)".strip()
        return PlannedReply(text, tuple(calls))

    # -- after tool results --------------------------------------------------------------

    def _after_results(
        self,
        messages: Sequence[BaseMessage],
        ai_message: AIMessage | None,
        results: list[ToolMessage],
    ) -> PlannedReply:
        calls_by_id: dict[str, tuple[str, dict[str, Any]]] = {}
        if ai_message is not None:
            for tool_call in ai_message.tool_calls:
                if tool_call["id"]:
                    calls_by_id[tool_call["id"]] = (tool_call["name"], tool_call["args"])
            for bad in ai_message.invalid_tool_calls:
                if bad["id"]:
                    calls_by_id[bad["id"]] = (bad["name"] or "", {})
        delete_targets = [
            i.text for i in parse_request(_last_human_text(messages)) if i.kind == "delete_text"
        ]
        paragraphs: list[str] = []
        follow_ups: list[PlannedCall] = []
        for result in results:
            name, args = calls_by_id.get(result.tool_call_id, (result.name or "", {}))
            is_plain_success = result.status != "error" and not result.text.lstrip().startswith(
                ("Rejected by the person:", "Error [", "Cancelled:")
            )
            if name == NOTES_LIST and delete_targets and is_plain_success:
                target = delete_targets.pop(0)
                text, call = self._delete_matching(target, result.text)
                paragraphs.append(text)
                if call is not None:
                    follow_ups.append(call)
                continue
            paragraphs.append(_describe_result(name, args, result))
        return PlannedReply("\n\n".join(paragraphs), tuple(follow_ups))

    def _delete_matching(self, target: str, listing: str) -> tuple[str, PlannedCall | None]:
        notes = parse_note_lines(listing)
        wanted = _normalise(target)
        exact = [(i, t) for i, t in notes if _normalise(t) == wanted]
        partial = [(i, t) for i, t in notes if wanted and wanted in _normalise(t)]
        matches = exact or partial
        if not matches:
            return f"No note matched “{target}”, so I did not delete anything.", None
        if len(matches) > 1:
            listed = "\n".join(f"- #{i}: {t}" for i, t in matches)
            return (
                f"Several notes match “{target}”:\n\n{listed}\n\nWhich one should I delete? "
                "Tell me its number, for example “delete note "
                f"{matches[0][0]}”.",
                None,
            )
        note_id, note_text = matches[0]
        if NOTES_DELETE not in self._tools_enabled():
            return f"Note #{note_id} matches. {self._unavailable(NOTES_DELETE)}", None
        return (
            f"Found it: note #{note_id} “{note_text}”. I'll delete it.",
            PlannedCall(NOTES_DELETE, {"id": note_id}),
        )
