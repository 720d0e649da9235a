"""The scripted model (a test aid): replays replies in order, streamed like the offline model."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage

from interlock.models import ScriptedChatModel, ScriptExhaustedError, scripted_message

SPEC = {
    "type": "function",
    "function": {"name": "notes_add", "description": "add", "parameters": {"type": "object"}},
}


async def _stream(model: Any, messages: list[BaseMessage]) -> list[AIMessageChunk]:
    return [chunk async for chunk in model.astream(messages)]


def _merge(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    return merged


async def test_replies_are_replayed_in_order_across_bound_copies() -> None:
    model = ScriptedChatModel(
        [
            AIMessage(
                content="Adding it.",
                tool_calls=[{"id": "call_x", "name": "notes_add", "args": {"text": "tea"}}],
            ),
            "All done.",
        ]
    )

    first = _merge(await _stream(model.bind_tools([SPEC]), [HumanMessage("one")]))
    second = _merge(await _stream(model.bind_tools([SPEC]), [HumanMessage("two")]))

    assert first.text == "Adding it."
    assert [(c["id"], c["name"], c["args"]) for c in first.tool_calls] == [
        ("call_x", "notes_add", {"text": "tea"})
    ]
    assert second.text == "All done."
    assert second.tool_calls == []
    assert model.calls_made == 2
    assert model.remaining == 0
    assert [m[0].text for m in model.received] == ["one", "two"]
    assert model.bound_tool_names_seen == [("notes_add",), ("notes_add",)]


async def test_text_streams_before_tool_calls_with_args_split() -> None:
    model = ScriptedChatModel([scripted_message("Let me add two.", ("a", {"n": 1}), ("b", {}))])

    chunks = await _stream(model, [HumanMessage("go")])

    text_positions = [n for n, c in enumerate(chunks) if c.text]
    call_positions = [n for n, c in enumerate(chunks) if c.tool_call_chunks]
    assert len(text_positions) == 4
    assert max(text_positions) < min(call_positions)
    assert len(call_positions) >= 4
    merged = _merge(chunks)
    assert [(c["id"], c["name"], c["args"]) for c in merged.tool_calls] == [
        ("call_1", "a", {"n": 1}),
        ("call_2", "b", {}),
    ]


@pytest.mark.parametrize("raw", ["{broken", "[1,2]", "not json", ""])
async def test_raw_argument_strings_are_streamed_unchanged(raw: str) -> None:
    model = ScriptedChatModel([scripted_message("", ("notes_add", raw, "call_bad"))])

    chunks = await _stream(model, [HumanMessage("go")])

    pieces = [tc["args"] or "" for c in chunks for tc in c.tool_call_chunks]
    assert len(pieces) >= 2
    assert "".join(pieces) == raw
    ids = [tc["id"] for c in chunks for tc in c.tool_call_chunks if tc["id"]]
    assert ids == ["call_bad"]


@pytest.mark.parametrize("raw", ["[1,2]", "not json"])
async def test_non_object_or_unparsable_args_aggregate_as_invalid_tool_calls(raw: str) -> None:
    model = ScriptedChatModel(
        [scripted_message("x", ("notes_add", {"text": "ok"}), ("notes_add", raw, "call_bad"))]
    )

    merged = _merge(await _stream(model, [HumanMessage("go")]))

    assert [c["args"] for c in merged.tool_calls] == [{"text": "ok"}]
    assert [(c["id"], c["args"]) for c in merged.invalid_tool_calls] == [("call_bad", raw)]


async def test_truncated_json_is_completed_leniently_by_langchain_aggregation() -> None:
    # LangChain parses chunk args with parse_partial_json, so "{broken" aggregates to {}:
    # a consumer that must reject malformed JSON has to join the raw tool_call_chunks args.
    model = ScriptedChatModel([scripted_message("", ("notes_add", "{broken", "call_bad"))])

    merged = _merge(await _stream(model, [HumanMessage("go")]))

    assert [(c["id"], c["args"]) for c in merged.tool_calls] == [("call_bad", {})]
    assert "".join(tc["args"] or "" for tc in merged.tool_call_chunks) == "{broken"


async def test_running_out_of_replies_raises() -> None:
    model = ScriptedChatModel(["only one"])
    await _stream(model, [HumanMessage("one")])

    with pytest.raises(ScriptExhaustedError):
        await _stream(model, [HumanMessage("two")])


async def test_invoke_consumes_a_reply_too() -> None:
    model = ScriptedChatModel(["first", "second"])

    assert (await model.ainvoke([HumanMessage("a")])).text == "first"
    assert model.invoke([HumanMessage("b")]).text == "second"


def test_scripted_message_rejects_badly_shaped_calls() -> None:
    with pytest.raises(ValueError, match="name, args"):
        scripted_message("", ("only_name",))
