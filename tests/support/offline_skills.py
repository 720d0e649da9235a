"""The offline model bound to the ask skill's tools and others, and helpers to ask it.

For the tests of the offline model's skill plans (``tests/models/test_models_offline_skills*``):
the tools' schemas (every call the model makes is checked against its tool's), the system
prompts with and without loadable skills, and histories ending in one call's result.
"""

from __future__ import annotations

from typing import Any, Literal

import jsonschema
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from interlock.models import OfflineChatModel

ASK_SCHEMAS: dict[str, dict[str, Any]] = {
    "ask_choice": {
        "type": "object",
        "properties": {
            "question": {"type": "string", "minLength": 1},
            "options": {
                "type": "array",
                "items": {"type": "string", "minLength": 1},
                "minItems": 2,
                "maxItems": 10,
            },
            "multiple": {"type": "boolean"},
        },
        "required": ["question", "options"],
        "additionalProperties": False,
    },
    "ask_form": {
        "type": "object",
        "properties": {"title": {"type": "string"}, "fields": {"type": "object"}},
        "required": ["title", "fields"],
        "additionalProperties": False,
    },
    "ask_confirm": {
        "type": "object",
        "properties": {"summary": {"type": "string", "minLength": 1}},
        "required": ["summary"],
        "additionalProperties": False,
    },
}
OTHER_SCHEMAS: dict[str, dict[str, Any]] = {
    "load_skill": {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
        "additionalProperties": False,
    },
    "suggestions": {
        "type": "object",
        "properties": {"options": {"type": "array", "items": {"type": "string"}}},
        "required": ["options"],
    },
    "notes_add": {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
    },
    "notes_delete": {
        "type": "object",
        "properties": {"id": {"type": "integer"}},
        "required": ["id"],
    },
    "notes_list": {"type": "object", "properties": {}},
    "greet_hello": {
        "type": "object",
        "properties": {"name": {"type": "string"}},
        "required": ["name"],
    },
    "web_search_fetch": {
        "type": "object",
        "properties": {"url": {"type": "string"}},
        "required": ["url"],
    },
}
SCHEMAS = {**ASK_SCHEMAS, **OTHER_SCHEMAS}
Status = Literal["success", "error"]

SKILLS_PROMPT = SystemMessage(
    "You are Ada, a helpful assistant.\n\n"
    "Skills you can load:\n"
    "- ask: Ask the person structured questions (choices, forms, confirmations).\n"
    "- greet: Say hello to people.\n"
    "\n"
    "Use load_skill to load one."
)
PLAIN_PROMPT = SystemMessage("You are Ada, a helpful assistant.")


def bound_model(*names: str, titles: dict[str, str] | None = None) -> Any:
    """The offline model with the tools ``names`` bound (``titles``: their display titles)."""
    specs = [
        {"type": "function", "function": {"name": n, "description": n, "parameters": SCHEMAS[n]}}
        for n in names
    ]
    return OfflineChatModel().bind_tools(specs, tool_titles=titles)


GREET_TITLE = {"greet_hello": "Greet someone"}


ALL_ASK = ("ask_choice", "ask_form", "ask_confirm")


async def answer_to(model: Any, messages: list[BaseMessage]) -> AIMessageChunk:
    """The model's whole streamed answer to ``messages``, its chunks merged."""
    merged: AIMessageChunk | None = None
    async for chunk in model.astream(messages):
        assert isinstance(chunk, AIMessageChunk)
        merged = chunk if merged is None else merged + chunk
    assert merged is not None
    return merged


def checked_calls(message: AIMessage) -> list[tuple[str, dict[str, Any]]]:
    """The calls of ``message`` as ``(tool, args)``; fails when args break their tool's schema."""
    for call in message.tool_calls:
        jsonschema.validate(call["args"], SCHEMAS[call["name"]])
    return [(call["name"], call["args"]) for call in message.tool_calls]


async def ask(text: str, *tools: str, system: SystemMessage = PLAIN_PROMPT) -> AIMessageChunk:
    """The answer to one request ``text`` with ``tools`` bound."""
    return await answer_to(bound_model(*tools), [system, HumanMessage(text)])


def history_after(
    request: str,
    name: str,
    args: dict[str, Any],
    content: str,
    status: Status = "success",
    *,
    ai_text: str = "",
) -> list[BaseMessage]:
    """History: request, an AI message with one call, then its result."""
    return [
        SKILLS_PROMPT,
        HumanMessage(request),
        AIMessage(content=ai_text, tool_calls=[{"id": "call_1", "name": name, "args": args}]),
        ToolMessage(content=content, tool_call_id="call_1", status=status),
    ]
