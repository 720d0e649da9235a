"""The configured-model path against an OpenAI-compatible server (a local stub speaking SSE)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import openai
import pytest
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from interlock.models import close_chat_model, create_chat_model
from interlock.settings import Settings
from support.openai_stub import OpenAIStub, StubReply, StubToolCall, strict_schema_problems

NOTES_ADD_SPEC: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "notes_add",
        "description": "Save a short note.",
        "parameters": {
            "type": "object",
            "properties": {"text": {"type": "string", "minLength": 1}},
            "required": ["text"],
            "additionalProperties": False,
        },
    },
}
NOTES_DELETE_SPEC: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "notes_delete",
        "description": "Delete a note by id.",
        "parameters": {
            "type": "object",
            "properties": {"id": {"type": "integer", "minimum": 1}},
            "required": ["id"],
            "additionalProperties": False,
        },
    },
}
# Not strict-valid: no additionalProperties anywhere, "opts" is optional and has optional keys.
SEARCH_SPEC: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "search_find",
        "description": "Search with options.",
        "parameters": {
            "type": "object",
            "properties": {
                "q": {"type": "string"},
                "opts": {"type": "object", "properties": {"limit": {"type": "integer"}}},
            },
            "required": ["q"],
        },
    },
}
# Not strict-valid either: allOf and $ref into $defs, as tool schemas from skills/MCP carry them.
SCHEDULE_SPEC: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "calendar_schedule",
        "description": "Schedule an event.",
        "parameters": {
            "type": "object",
            "$defs": {
                "when": {
                    "type": "object",
                    "properties": {"date": {"type": "string", "format": "date"}},
                    "required": ["date"],
                }
            },
            "properties": {
                "title": {"type": "string"},
                "when": {"allOf": [{"$ref": "#/$defs/when"}], "description": "When it happens."},
            },
            "required": ["title", "when"],
        },
    },
}


def _settings(base_url: str) -> Settings:
    return Settings(
        _env_file=None,  # type: ignore[call-arg]
        model="openai:gpt-4o-mini",
        model_base_url=base_url,
        model_api_key="test",  # type: ignore[arg-type]
    )


async def _collect(
    model: Any, messages: list[BaseMessage]
) -> tuple[list[AIMessageChunk], AIMessageChunk]:
    chunks: list[AIMessageChunk] = []
    async for chunk in model.astream(messages):
        chunks.append(chunk)
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    return chunks, merged


async def test_a_model_made_after_another_event_loop_ended_still_reaches_the_server(
    openai_stub: tuple[OpenAIStub, str],
) -> None:
    # A second server in one process (tests, an app embedding Interlock) on the same model
    # URL: the first one's event loop is gone, its keep-alive socket with it. Each model
    # has a pool of its own, so the second never touches that socket ("Event loop is
    # closed"), and closing the model closes its pool.
    stub, base_url = openai_stub
    stub.add_reply(StubReply(text_tokens=["first"]))
    stub.add_reply(StubReply(text_tokens=["second"]))

    async def first_server_turn() -> str:
        _, merged = await _collect(create_chat_model(_settings(base_url)), [HumanMessage("hi")])
        return str(merged.content)

    assert await asyncio.to_thread(asyncio.run, first_server_turn()) == "first"

    model = create_chat_model(_settings(base_url))
    _, merged = await _collect(model, [HumanMessage("hi again")])
    assert merged.content == "second"
    await close_chat_model(model)
    assert model.http_async_client.is_closed  # type: ignore[attr-defined]


async def test_streamed_text_and_two_parallel_tool_calls_aggregate(
    openai_stub: tuple[OpenAIStub, str],
) -> None:
    stub, base_url = openai_stub
    stub.add_reply(
        StubReply(
            text_tokens=["Sure", ", I'll ", "do ", "both."],
            tool_calls=[
                StubToolCall("call_abc", "notes_add", ['{"te', 'xt": "buy ', 'milk"}']),
                StubToolCall("call_def", "notes_delete", ['{"i', 'd": ', "3}"]),
            ],
        )
    )
    model = create_chat_model(_settings(base_url)).bind_tools([NOTES_ADD_SPEC, NOTES_DELETE_SPEC])

    chunks, merged = await _collect(
        model, [SystemMessage("You help."), HumanMessage("add a note buy milk and delete note 3")]
    )

    text_pieces = [c.content for c in chunks if isinstance(c.content, str) and c.content]
    assert text_pieces == ["Sure", ", I'll ", "do ", "both."]
    assert sum(1 for c in chunks if c.tool_call_chunks) >= 6
    assert [(c["id"], c["name"], c["args"]) for c in merged.tool_calls] == [
        ("call_abc", "notes_add", {"text": "buy milk"}),
        ("call_def", "notes_delete", {"id": 3}),
    ]
    assert merged.invalid_tool_calls == []
    assert merged.response_metadata.get("finish_reason") == "tool_calls"


async def test_request_carries_tools_history_key_and_stream_flag(
    openai_stub: tuple[OpenAIStub, str],
) -> None:
    stub, base_url = openai_stub
    stub.add_reply(StubReply(text_tokens=["Done."]))
    model = create_chat_model(_settings(base_url)).bind_tools([NOTES_ADD_SPEC])
    history: list[BaseMessage] = [
        SystemMessage("You help."),
        HumanMessage("add a note buy milk"),
        AIMessage(
            content="",
            tool_calls=[{"id": "call_1", "name": "notes_add", "args": {"text": "buy milk"}}],
        ),
        ToolMessage(content="Added note #1: buy milk", tool_call_id="call_1", status="success"),
    ]

    _, merged = await _collect(model, history)

    assert merged.text == "Done."
    (received,) = stub.requests
    assert received.headers["authorization"] == "Bearer test"
    body = received.body
    assert body["model"] == "gpt-4o-mini"
    assert body["stream"] is True
    assert body["tools"] == [NOTES_ADD_SPEC]
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "tool"]
    assistant = body["messages"][2]
    assert assistant["tool_calls"][0]["id"] == "call_1"
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == {"text": "buy milk"}
    assert body["messages"][3] == {
        "role": "tool",
        "content": "Added note #1: buy milk",
        "tool_call_id": "call_1",
    }


async def test_case_c22_non_strict_schemas_are_sent_without_strict_and_accepted(
    openai_stub: tuple[OpenAIStub, str],
) -> None:
    stub, base_url = openai_stub
    stub.add_reply(
        StubReply(tool_calls=[StubToolCall("call_s", "search_find", ['{"q": ', '"cats"}'])])
    )
    assert strict_schema_problems(SEARCH_SPEC["function"]["parameters"])
    assert strict_schema_problems(SCHEDULE_SPEC["function"]["parameters"])
    model = create_chat_model(_settings(base_url)).bind_tools([SEARCH_SPEC, SCHEDULE_SPEC])

    _, merged = await _collect(model, [HumanMessage("find cats")])

    assert [(c["name"], c["args"]) for c in merged.tool_calls] == [("search_find", {"q": "cats"})]
    (received,) = stub.requests
    tools = received.body["tools"]
    assert [t["function"]["name"] for t in tools] == ["search_find", "calendar_schedule"]
    for tool in tools:
        assert tool.get("strict") is not True
        assert tool["function"].get("strict") is not True
    assert tools == [SEARCH_SPEC, SCHEDULE_SPEC]


async def test_case_c22_stub_rejects_strict_flag_on_non_strict_schema(
    openai_stub: tuple[OpenAIStub, str],
) -> None:
    stub, base_url = openai_stub
    strict_search = {**SEARCH_SPEC, "function": {**SEARCH_SPEC["function"], "strict": True}}
    model = create_chat_model(_settings(base_url)).bind_tools([strict_search])

    with pytest.raises(openai.BadRequestError) as caught:
        await _collect(model, [HumanMessage("find cats")])

    assert caught.value.status_code == 400
    assert "additionalProperties" in str(caught.value)
    assert stub.requests[0].body["tools"][0]["function"]["strict"] is True
