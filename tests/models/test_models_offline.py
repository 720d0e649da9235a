"""The built-in offline model: what it answers to each request kind, and how it streams.

Its answers to tool results: ``test_models_offline_answers``.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
)
from langchain_core.tools import tool

from interlock.models import OFFLINE_MODEL_NAME, OfflineChatModel
from interlock.models.offline.results import parse_note_lines
from support.offline_model import (
    SPECS,
    SYSTEM,
    ask,
    checked_calls,
    history_after,
    offline_model,
    stream_of,
)

# -- new requests ---------------------------------------------------------------------------


async def test_ideas_for_a_cat_name_offer_four_named_options() -> None:
    reply = await ask("Any ideas for a name for my cat?")

    assert checked_calls(reply) == [
        ("suggestions", {"options": ["Miso", "Pixel", "Juniper", "Biscuit"]})
    ]
    assert reply.tool_calls[0]["id"] == "call_1"


@pytest.mark.parametrize(
    "request_text",
    [
        "Suggest something for dinner",
        "give me some ideas for a weekend trip",
        "help me choose a laptop",
        "Can you pick a colour for my kitchen?",
        "What are my options for a birthday gift?",
        "help me choose between tea, coffee or juice",
    ],
)
async def test_requests_for_ideas_or_a_choice_call_suggestions(request_text: str) -> None:
    reply = await ask(request_text)

    ((name, args),) = checked_calls(reply)
    assert name == "suggestions"
    assert 3 <= len(args["options"]) <= 4


async def test_listed_alternatives_become_the_options() -> None:
    reply = await ask("Help me choose between tea, coffee or juice")

    assert checked_calls(reply) == [("suggestions", {"options": ["tea", "coffee", "juice"]})]


async def test_suggestions_without_a_known_schema_carry_question_and_options() -> None:
    bare = {"type": "function", "function": {"name": "suggestions", "description": "pick"}}
    model = OfflineChatModel().bind_tools([bare])

    _, reply = await stream_of(model, [HumanMessage("ideas for a name for my cat")])

    args = reply.tool_calls[0]["args"]
    assert args["options"] == ["Miso", "Pixel", "Juniper", "Biscuit"]
    assert "cat" in args["question"]


@pytest.mark.parametrize(
    "request_text",
    [
        "add a note buy milk",
        "Add a note: buy milk",
        "please add note buy milk.",
        "note: buy milk",
        "Remember buy milk",
        'add a note "buy milk"',
    ],
)
async def test_add_note_requests_call_notes_add_with_the_text(request_text: str) -> None:
    reply = await ask(request_text)

    assert checked_calls(reply) == [("notes_add", {"text": "buy milk"})]


@pytest.mark.parametrize(
    "request_text", ["delete note 3", "Delete note #3", "remove note #3 please"]
)
async def test_delete_note_by_number_calls_notes_delete(request_text: str) -> None:
    reply = await ask(request_text)

    assert checked_calls(reply) == [("notes_delete", {"id": 3})]


@pytest.mark.parametrize(
    "request_text", ["what notes do I have?", "List my notes", "show notes", "Show me all my notes"]
)
async def test_note_listing_requests_call_notes_list(request_text: str) -> None:
    reply = await ask(request_text)

    assert checked_calls(reply) == [("notes_list", {})]


async def test_a_note_number_too_long_for_an_integer_is_read_as_text_not_a_crash() -> None:
    """Python's int() refuses more than 4300 digits (ValueError): the run failed with
    ``model_error``; such a "number" names no note, so it is looked up as text."""
    reply = await ask("delete note " + "9" * 5000)

    assert checked_calls(reply) == [("notes_list", {})]
    assert parse_note_lines(f"#{'9' * 5000}: huge\n#2: buy milk") == [(2, "buy milk")]


async def test_delete_note_by_text_lists_notes_first() -> None:
    reply = await ask("delete note buy milk")

    assert checked_calls(reply) == [("notes_list", {})]


async def test_add_and_delete_in_one_message_are_two_parallel_calls() -> None:
    chunks, reply = await stream_of(
        offline_model(), [SYSTEM, HumanMessage("add a note water the plants and delete note 2")]
    )

    assert checked_calls(reply) == [
        ("notes_add", {"text": "water the plants"}),
        ("notes_delete", {"id": 2}),
    ]
    assert [c["id"] for c in reply.tool_calls] == ["call_1", "call_2"]
    indexes = {tc["index"] for c in chunks for tc in c.tool_call_chunks}
    assert indexes == {0, 1}


async def test_note_text_with_and_stays_one_note() -> None:
    reply = await ask("add a note buy bread and milk")

    assert checked_calls(reply) == [("notes_add", {"text": "buy bread and milk"})]


async def test_long_answer_streams_hundreds_of_tokens_without_tool_calls() -> None:
    chunks, reply = await stream_of(
        offline_model(), [SYSTEM, HumanMessage("Write a long answer please")]
    )

    text_chunks = [c for c in chunks if c.text]
    assert len(text_chunks) >= 300
    assert reply.tool_calls == []
    assert reply.response_metadata["finish_reason"] == "stop"


async def test_other_requests_explain_the_offline_model_and_examples() -> None:
    reply = await ask("What's the weather like?")

    assert reply.tool_calls == []
    assert "offline" in reply.text
    for example in ("ideas for a name for my cat", "add a note", "delete note", "long answer"):
        assert example in reply.text


async def test_tools_that_are_not_bound_are_never_called() -> None:
    only_list = [s for s in SPECS if s["function"]["name"] == "notes_list"]
    model = OfflineChatModel().bind_tools(only_list)

    _, reply = await stream_of(model, [HumanMessage("add a note buy milk")])

    assert reply.tool_calls == []
    assert "I would use “Add a note” for that" in reply.text
    _, unbound = await stream_of(OfflineChatModel(), [HumanMessage("delete note 3")])
    assert unbound.tool_calls == []


async def test_tool_choice_none_disables_tool_calls() -> None:
    model = OfflineChatModel().bind_tools(SPECS, tool_choice="none")

    _, reply = await stream_of(model, [HumanMessage("what notes do I have")])

    assert reply.tool_calls == []


async def test_call_ids_continue_after_the_calls_already_in_history() -> None:
    history = history_after(
        "add a note a", [("notes_add", {"text": "a"})], [("Added note #1: a", "success")]
    )
    history += [AIMessage("Done."), HumanMessage("add a note b and delete note 1")]

    _, reply = await stream_of(offline_model(), history)

    assert [c["id"] for c in reply.tool_calls] == ["call_2", "call_3"]


# -- streaming --------------------------------------------------------------------------------


async def test_text_streams_word_by_word_then_tool_args_across_chunks() -> None:
    chunks, reply = await stream_of(offline_model(), [SYSTEM, HumanMessage("add a note buy milk")])

    text_chunks = [c.text for c in chunks if c.text]
    assert len(text_chunks) >= 3
    assert all(len(piece.split()) == 1 for piece in text_chunks)
    first_call_chunk = next(n for n, c in enumerate(chunks) if c.tool_call_chunks)
    assert all(not c.text for c in chunks[first_call_chunk:])
    arg_pieces = [tc["args"] for c in chunks for tc in c.tool_call_chunks]
    assert len(arg_pieces) >= 2
    assert json.loads("".join(p or "" for p in arg_pieces)) == {"text": "buy milk"}
    assert reply.tool_calls[0]["args"] == {"text": "buy milk"}
    assert reply.response_metadata == {
        "model_name": OFFLINE_MODEL_NAME,
        "finish_reason": "tool_calls",
    }
    assert reply.usage_metadata is not None
    assert reply.usage_metadata["output_tokens"] > 0


async def test_the_same_conversation_streams_the_same_chunks() -> None:
    messages: list[BaseMessage] = [SYSTEM, HumanMessage("add a note x and delete note 1")]

    first, _ = await stream_of(offline_model(), messages)
    second, _ = await stream_of(offline_model(), messages)

    def shape(chunks: list[AIMessageChunk]) -> list[tuple[Any, ...]]:
        return [(c.content, c.tool_call_chunks, c.response_metadata) for c in chunks]

    assert shape(first) == shape(second)


async def test_sync_stream_invoke_and_ainvoke_agree_with_astream() -> None:
    model = offline_model()
    messages: list[BaseMessage] = [SYSTEM, HumanMessage("ideas for a name for my cat")]
    _, streamed = await stream_of(model, messages)

    merged = None
    for chunk in model.stream(messages):
        merged = chunk if merged is None else merged + chunk
    invoked = model.invoke(messages)
    ainvoked = await model.ainvoke(messages)

    for message in (merged, invoked, ainvoked):
        assert isinstance(message, AIMessage)
        assert message.text == streamed.text
        assert message.tool_calls == streamed.tool_calls


async def test_delays_slow_the_stream_down() -> None:
    model = offline_model(first_token_delay_s=0.05, token_delay_s=0.005)

    started = time.monotonic()
    chunks, _ = await stream_of(model, [HumanMessage("add a note buy milk")])
    elapsed = time.monotonic() - started

    assert elapsed >= 0.05 + 0.005 * (len(chunks) - 2)


def test_async_streaming_is_native_not_a_thread_wrapper() -> None:
    assert OfflineChatModel._astream is not BaseChatModel._astream
    assert OfflineChatModel._stream is not BaseChatModel._stream


async def test_bind_tools_returns_a_copy_and_accepts_langchain_tools() -> None:
    @tool
    def notes_add(text: str) -> str:
        """Save a note."""
        return text

    base = OfflineChatModel()
    bound = base.bind_tools([notes_add])

    assert isinstance(bound, OfflineChatModel)
    assert bound.bound_tool_names == ("notes_add",)
    assert base.bound_tool_names == ()
    _, reply = await stream_of(bound, [HumanMessage("add a note tea")])
    assert reply.tool_calls[0]["args"] == {"text": "tea"}


async def test_input_tokens_are_the_words_of_the_history_as_it_is_now() -> None:
    # Counts of messages seen before are kept per message object while its text stays the
    # same string; a message whose text was replaced is counted again.
    question = HumanMessage("please list my notes")
    history: list[BaseMessage] = [SYSTEM, question]
    words = len(SYSTEM.text.split()) + 4
    for _ in range(2):
        _chunks, reply = await stream_of(offline_model(), history)
        assert reply.usage_metadata is not None
        assert reply.usage_metadata["input_tokens"] == words

    question.content = "list my notes"
    _chunks, reply = await stream_of(offline_model(), history)
    assert reply.usage_metadata is not None
    assert reply.usage_metadata["input_tokens"] == words - 1
