"""The offline model bound to the suggestions and notes tools, and helpers to ask it.

For the tests of the offline model (``tests/models/test_models_offline*``): the tools' schemas
(every call the model makes is checked against its tool's), and histories ending in results.
"""

from __future__ import annotations

from typing import Any, Literal

import jsonschema
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import Runnable

from interlock.models import OfflineChatModel

SUGGESTIONS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "options": {
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 200, "pattern": r"\S"},
            "minItems": 2,
            "maxItems": 6,
            "uniqueItems": True,
        },
        "option": {"type": "string"},
    },
    "required": ["options"],
    "additionalProperties": False,
}
SCHEMAS: dict[str, dict[str, Any]] = {
    "suggestions": SUGGESTIONS_SCHEMA,
    "notes_list": {"type": "object", "properties": {}, "additionalProperties": False},
    "notes_add": {
        "type": "object",
        "properties": {"text": {"type": "string", "minLength": 1, "pattern": r"\S"}},
        "required": ["text"],
        "additionalProperties": False,
    },
    "notes_delete": {
        "type": "object",
        "properties": {"id": {"type": "integer", "minimum": 1}},
        "required": ["id"],
        "additionalProperties": False,
    },
}
SPECS = [
    {"type": "function", "function": {"name": name, "description": name, "parameters": schema}}
    for name, schema in SCHEMAS.items()
]
Status = Literal["success", "error"]
SYSTEM = SystemMessage("You are Ada, a helpful assistant.")


def offline_model(**kwargs: Any) -> Runnable[Any, AIMessage]:
    """The offline model (``kwargs``: its settings) with the suggestions and notes tools bound."""
    return OfflineChatModel(**kwargs).bind_tools(SPECS)


async def stream_of(
    model: Runnable[Any, AIMessage] | BaseChatModel, messages: list[BaseMessage]
) -> tuple[list[AIMessageChunk], AIMessageChunk]:
    """The chunks the model streams for ``messages``, and them merged."""
    chunks: list[AIMessageChunk] = []
    async for chunk in model.astream(messages):
        assert isinstance(chunk, AIMessageChunk)
        chunks.append(chunk)
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    return chunks, merged


async def ask(text: str, **kwargs: Any) -> AIMessageChunk:
    """The answer to one request ``text``, its chunks merged."""
    _, merged = await stream_of(offline_model(**kwargs), [SYSTEM, HumanMessage(text)])
    return merged


def checked_calls(message: AIMessage) -> list[tuple[str, dict[str, Any]]]:
    """The calls of ``message`` as ``(tool, args)``; fails when args break their tool's schema."""
    for call in message.tool_calls:
        jsonschema.validate(call["args"], SCHEMAS[call["name"]])
    return [(call["name"], call["args"]) for call in message.tool_calls]


def history_after(
    request: str, calls: list[tuple[str, dict[str, Any]]], results: list[tuple[str, Status]]
) -> list[BaseMessage]:
    """History: request, an AI message with ``calls``, then ``(content, status)`` results."""
    ids = [f"call_{n}" for n in range(1, len(calls) + 1)]
    history: list[BaseMessage] = [
        SYSTEM,
        HumanMessage(request),
        AIMessage(
            content="",
            tool_calls=[
                {"id": i, "name": name, "args": args}
                for i, (name, args) in zip(ids, calls, strict=True)
            ],
        ),
    ]
    history += [
        ToolMessage(content=content, tool_call_id=i, status=status)
        for i, (content, status) in zip(ids, results, strict=True)
    ]
    return history
