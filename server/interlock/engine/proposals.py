"""Reading a streamed model message: its text and the tool calls it proposes.

Argument JSON is parsed here from the raw streamed text, never trusted: broken JSON keeps
its raw text and parse error, so the call can fail with ``invalid_args`` and no card.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessageChunk

from interlock.json_words import JSON_ERRORS, json_problem
from interlock.text import clean_json, clean_text


@dataclass
class Proposal:
    """One proposed tool call: provider tool name, parsed args (None when unparsable)."""

    name: str
    args: Any
    raw_args: str
    parse_error: str | None = None


def read_proposals(chunks: Sequence[AIMessageChunk]) -> list[Proposal]:
    """Return the tool calls of a streamed message, in order.

    Args:
        chunks: The message's streamed chunks, in the order they arrived.

    Returns:
        One proposal per call, the calls assembled by :func:`assemble_calls`; a model that
        sends whole ``tool_calls`` instead of chunks has those read as they are.
    """
    proposals: list[Proposal] = []
    for call in assemble_calls(chunks):
        raw = call.args
        try:
            args: Any = json.loads(raw) if raw.strip() else {}
            error = None
        except JSON_ERRORS as exc:  # a syntax error, nesting too deep, a huge number
            args, error = None, json_problem(exc)
        proposals.append(
            Proposal(
                name=clean_text(call.name),
                args=clean_json(args),
                raw_args=clean_text(raw),
                parse_error=error,
            )
        )
    if not proposals:
        for chunk in chunks:
            for tool_call in chunk.tool_calls:
                proposals.append(
                    Proposal(
                        name=clean_text(tool_call["name"]),
                        args=clean_json(tool_call["args"]),
                        raw_args=json.dumps(clean_json(tool_call["args"])),
                    )
                )
    return proposals


@dataclass
class StreamedCall:
    """A tool call put together from its streamed pieces.

    Attributes:
        id: The provider's call id (None when the provider sent none).
        name: The function name, pieces joined.
        args: The raw argument text, pieces joined.
        index: The stream index its pieces carried (None: a piece without one).
    """

    id: str | None
    name: str
    args: str
    index: int | str | None


def assemble_calls(chunks: Sequence[AIMessageChunk]) -> list[StreamedCall]:
    """Put the ``tool_call_chunks`` of a streamed message back together into calls.

    OpenAI's streaming format sends each call's pieces under an ``index``: the first piece
    carries the call's ``id`` and name, the following ones only ``index`` and argument text.
    The rules:

    * a piece whose ``index`` no call uses yet starts a new call;
    * a piece with an ``id`` other than that of the call last started on its ``index``
      starts a new call too: some OpenAI-compatible servers stream every call on index 0,
      each starting with its own id (LangChain's merge appends such a call but then joins
      the next id-less pieces to the *first* call on that index, so a call was lost);
    * a piece without an ``id`` (or with the same id) continues the call last started on
      its ``index``: name and argument text are appended;
    * a piece without an ``index`` is a call of its own (as in LangChain's merge).

    Args:
        chunks: The message's streamed chunks, in the order they arrived.

    Returns:
        The calls in the order they started.
    """
    calls: list[StreamedCall] = []
    last_on: dict[int | str, StreamedCall] = {}
    for chunk in chunks:
        for piece in chunk.tool_call_chunks:
            index = piece.get("index")
            call_id = piece.get("id") or None
            current = last_on.get(index) if index is not None else None
            if current is None or (call_id is not None and current.id not in (None, call_id)):
                current = StreamedCall(call_id, piece.get("name") or "", "", index)
                calls.append(current)
                if index is not None:
                    last_on[index] = current
            else:
                current.id = current.id or call_id
                current.name += piece.get("name") or ""
            current.args += piece.get("args") or ""
    return calls


def message_text(content: Any) -> str:
    """Return the text of a message content: a string, or text blocks (Anthropic style).

    NUL characters and lone surrogates are replaced (storage cannot hold them).
    """
    return clean_text(_raw_text(content))


def _raw_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in content or []:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
    return "".join(parts)


def field_hint(field_errors: list[dict[str, Any]]) -> str | None:
    """Return ``path: message message. path: message.`` for a tool message, or None.

    One entry per field, in the order of first mention; a field's messages (sentences, as
    :mod:`interlock.tools.schema.validation` writes them) follow its path once each, so an
    empty text reads ``text: Must not be empty. Must not be blank.``.
    """
    if not field_errors:
        return None
    by_path: dict[str, list[str]] = {}
    for error in field_errors:
        messages = by_path.setdefault("/".join(map(str, error["path"])) or "(root)", [])
        message = str(error["message"]).strip()
        message = message if message.endswith((".", "?", "!")) else f"{message}."
        if message not in messages:
            messages.append(message)
    return " ".join(f"{path}: {' '.join(messages)}" for path, messages in by_path.items())
