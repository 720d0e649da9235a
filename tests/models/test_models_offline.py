"""The built-in offline model: what it answers to each request kind, and how it streams."""

from __future__ import annotations

import json
import time
from typing import Any, Literal

import jsonschema
import pytest
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
from langchain_core.tools import tool

from interlock.models import OFFLINE_MODEL_NAME, OfflineChatModel
from interlock.models.offline.results import parse_note_lines

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


def _model(**kwargs: Any) -> Runnable[Any, AIMessage]:
    return OfflineChatModel(**kwargs).bind_tools(SPECS)


async def _stream(
    model: Runnable[Any, AIMessage] | BaseChatModel, messages: list[BaseMessage]
) -> tuple[list[AIMessageChunk], AIMessageChunk]:
    chunks: list[AIMessageChunk] = []
    async for chunk in model.astream(messages):
        assert isinstance(chunk, AIMessageChunk)
        chunks.append(chunk)
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    return chunks, merged


async def _ask(text: str, **kwargs: Any) -> AIMessageChunk:
    _, merged = await _stream(_model(**kwargs), [SYSTEM, HumanMessage(text)])
    return merged


def _calls(message: AIMessage) -> list[tuple[str, dict[str, Any]]]:
    for call in message.tool_calls:
        jsonschema.validate(call["args"], SCHEMAS[call["name"]])
    return [(call["name"], call["args"]) for call in message.tool_calls]


def _after(
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


# -- new requests ---------------------------------------------------------------------------


async def test_ideas_for_a_cat_name_offer_four_named_options() -> None:
    reply = await _ask("Any ideas for a name for my cat?")

    assert _calls(reply) == [("suggestions", {"options": ["Miso", "Pixel", "Juniper", "Biscuit"]})]
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
    reply = await _ask(request_text)

    ((name, args),) = _calls(reply)
    assert name == "suggestions"
    assert 3 <= len(args["options"]) <= 4


async def test_listed_alternatives_become_the_options() -> None:
    reply = await _ask("Help me choose between tea, coffee or juice")

    assert _calls(reply) == [("suggestions", {"options": ["tea", "coffee", "juice"]})]


async def test_suggestions_without_a_known_schema_carry_question_and_options() -> None:
    bare = {"type": "function", "function": {"name": "suggestions", "description": "pick"}}
    model = OfflineChatModel().bind_tools([bare])

    _, reply = await _stream(model, [HumanMessage("ideas for a name for my cat")])

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
    reply = await _ask(request_text)

    assert _calls(reply) == [("notes_add", {"text": "buy milk"})]


@pytest.mark.parametrize(
    "request_text", ["delete note 3", "Delete note #3", "remove note #3 please"]
)
async def test_delete_note_by_number_calls_notes_delete(request_text: str) -> None:
    reply = await _ask(request_text)

    assert _calls(reply) == [("notes_delete", {"id": 3})]


@pytest.mark.parametrize(
    "request_text", ["what notes do I have?", "List my notes", "show notes", "Show me all my notes"]
)
async def test_note_listing_requests_call_notes_list(request_text: str) -> None:
    reply = await _ask(request_text)

    assert _calls(reply) == [("notes_list", {})]


async def test_a_note_number_too_long_for_an_integer_is_read_as_text_not_a_crash() -> None:
    """Python's int() refuses more than 4300 digits (ValueError): the run failed with
    ``model_error``; such a "number" names no note, so it is looked up as text."""
    reply = await _ask("delete note " + "9" * 5000)

    assert _calls(reply) == [("notes_list", {})]
    assert parse_note_lines(f"#{'9' * 5000}: huge\n#2: buy milk") == [(2, "buy milk")]


async def test_delete_note_by_text_lists_notes_first() -> None:
    reply = await _ask("delete note buy milk")

    assert _calls(reply) == [("notes_list", {})]


async def test_add_and_delete_in_one_message_are_two_parallel_calls() -> None:
    chunks, reply = await _stream(
        _model(), [SYSTEM, HumanMessage("add a note water the plants and delete note 2")]
    )

    assert _calls(reply) == [
        ("notes_add", {"text": "water the plants"}),
        ("notes_delete", {"id": 2}),
    ]
    assert [c["id"] for c in reply.tool_calls] == ["call_1", "call_2"]
    indexes = {tc["index"] for c in chunks for tc in c.tool_call_chunks}
    assert indexes == {0, 1}


async def test_note_text_with_and_stays_one_note() -> None:
    reply = await _ask("add a note buy bread and milk")

    assert _calls(reply) == [("notes_add", {"text": "buy bread and milk"})]


async def test_long_answer_streams_hundreds_of_tokens_without_tool_calls() -> None:
    chunks, reply = await _stream(_model(), [SYSTEM, HumanMessage("Write a long answer please")])

    text_chunks = [c for c in chunks if c.text]
    assert len(text_chunks) >= 300
    assert reply.tool_calls == []
    assert reply.response_metadata["finish_reason"] == "stop"


async def test_other_requests_explain_the_offline_model_and_examples() -> None:
    reply = await _ask("What's the weather like?")

    assert reply.tool_calls == []
    assert "offline" in reply.text
    for example in ("ideas for a name for my cat", "add a note", "delete note", "long answer"):
        assert example in reply.text


async def test_tools_that_are_not_bound_are_never_called() -> None:
    only_list = [s for s in SPECS if s["function"]["name"] == "notes_list"]
    model = OfflineChatModel().bind_tools(only_list)

    _, reply = await _stream(model, [HumanMessage("add a note buy milk")])

    assert reply.tool_calls == []
    assert "I would use `notes.add` for that" in reply.text
    _, unbound = await _stream(OfflineChatModel(), [HumanMessage("delete note 3")])
    assert unbound.tool_calls == []


async def test_tool_choice_none_disables_tool_calls() -> None:
    model = OfflineChatModel().bind_tools(SPECS, tool_choice="none")

    _, reply = await _stream(model, [HumanMessage("what notes do I have")])

    assert reply.tool_calls == []


async def test_call_ids_continue_after_the_calls_already_in_history() -> None:
    history = _after(
        "add a note a", [("notes_add", {"text": "a"})], [("Added note #1: a", "success")]
    )
    history += [AIMessage("Done."), HumanMessage("add a note b and delete note 1")]

    _, reply = await _stream(_model(), history)

    assert [c["id"] for c in reply.tool_calls] == ["call_2", "call_3"]


# -- answers to tool results ------------------------------------------------------------------


async def test_a_chosen_suggestion_is_acknowledged_verbatim() -> None:
    history = _after(
        "ideas for a name for my cat",
        [("suggestions", {"options": ["Miso", "Pixel"]})],
        [("The person chose: Pixel", "success")],
    )

    _, reply = await _stream(_model(), history)

    assert reply.tool_calls == []
    assert "Great choice: **Pixel**" in reply.text


async def test_a_rejected_delete_quotes_the_reason_and_does_nothing() -> None:
    rejection = (
        "Rejected by the person: I still need that one. They declined this call; "
        "do not retry it unless they ask."
    )
    history = _after("delete note 3", [("notes_delete", {"id": 3})], [(rejection, "error")])

    _, reply = await _stream(_model(), history)

    assert reply.tool_calls == []
    assert "I did not delete the note" in reply.text
    assert "You said: I still need that one." in reply.text
    assert "Nothing was done" in reply.text


async def test_a_rejection_without_reason_says_so() -> None:
    rejection = (
        "Rejected by the person: no reason given. They declined this call; "
        "do not retry it unless they ask."
    )
    history = _after("add a note x", [("notes_add", {"text": "x"})], [(rejection, "error")])

    _, reply = await _stream(_model(), history)

    assert "I did not add the note" in reply.text
    assert "did not give a reason" in reply.text


async def test_a_tool_error_is_explained_in_words_without_its_code_or_hint() -> None:
    error = "Error [not_found]: There is no note #9. Hint: Call notes.list to see the ids."
    history = _after("delete note 9", [("notes_delete", {"id": 9})], [(error, "error")])

    _, reply = await _stream(_model(), history)

    assert reply.tool_calls == []
    assert "not_found" not in reply.text  # the code is for programs, not the person
    assert reply.text == "Sorry — I could not delete the note: There is no note #9."
    # The hint tells the model what to call next; the person cannot call notes.list.
    assert "Hint" not in reply.text and "notes.list" not in reply.text


async def test_a_cancelled_call_is_reported_as_not_done() -> None:
    history = _after(
        "delete note 2", [("notes_delete", {"id": 2})], [("Cancelled: run cancelled.", "error")]
    )

    _, reply = await _stream(_model(), history)

    assert "cancelled" in reply.text
    assert "Nothing was done" in reply.text


async def test_an_added_note_is_confirmed_with_its_text() -> None:
    history = _after(
        "add a note buy milk",
        [("notes_add", {"text": "buy milk"})],
        [("Added note #4: buy milk", "success")],
    )

    _, reply = await _stream(_model(), history)

    assert reply.text == "Done — I added note #4: “buy milk”."


async def test_a_note_listing_is_shown() -> None:
    history = _after(
        "what notes do I have", [("notes_list", {})], [("#1: buy milk\n#2: call Sam", "success")]
    )

    _, reply = await _stream(_model(), history)

    assert reply.tool_calls == []
    # One Markdown list item per note: plain lines would render as one run-on paragraph.
    assert reply.text == "Here are your notes:\n\n- #1: buy milk\n- #2: call Sam"


async def test_a_note_listing_says_here_are_your_notes_once() -> None:
    request = "what notes do I have?"
    call = await _ask(request)
    history: list[BaseMessage] = [
        SYSTEM,
        HumanMessage(request),
        AIMessage(content=call.text, tool_calls=call.tool_calls),
        ToolMessage(content="#1: buy milk", tool_call_id=call.tool_calls[0]["id"]),
    ]

    _, answer = await _stream(_model(), history)

    said = f"{call.text}\n{answer.text}".lower()
    assert said.count("here are your notes") == 1, said
    assert "#1: buy milk" in answer.text


async def test_delete_by_text_deletes_the_matching_note_after_listing() -> None:
    listing = "#1: call Sam\n#3: Buy milk\n#4: water plants"
    history = _after("delete note buy milk", [("notes_list", {})], [(listing, "success")])

    _, reply = await _stream(_model(), history)

    assert _calls(reply) == [("notes_delete", {"id": 3})]
    assert reply.tool_calls[0]["id"] == "call_2"


async def test_delete_by_text_without_a_match_deletes_nothing() -> None:
    history = _after("delete note buy milk", [("notes_list", {})], [("#1: call Sam", "success")])

    _, reply = await _stream(_model(), history)

    assert reply.tool_calls == []
    assert "No note matched “buy milk”" in reply.text


async def test_several_results_after_one_message_are_answered_in_order() -> None:
    history = _after(
        "add a note tea and delete note 2",
        [("notes_add", {"text": "tea"}), ("notes_delete", {"id": 2})],
        [("Added note #5: tea", "success"), ("Error [not_found]: There is no note #2.", "error")],
    )

    _, reply = await _stream(_model(), history)

    assert reply.tool_calls == []
    added, failed = reply.text.split("\n\n")
    assert "note #5" in added
    assert "There is no note #2." in failed


async def test_unknown_tool_results_are_summarised() -> None:
    history = _after("hello", [("weather_get", {})], [("Sunny, 21 °C", "success")])

    _, reply = await _stream(_model(), history)

    assert "weather_get" in reply.text
    assert "Sunny, 21 °C" in reply.text


# -- streaming --------------------------------------------------------------------------------


async def test_text_streams_word_by_word_then_tool_args_across_chunks() -> None:
    chunks, reply = await _stream(_model(), [SYSTEM, HumanMessage("add a note buy milk")])

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

    first, _ = await _stream(_model(), messages)
    second, _ = await _stream(_model(), messages)

    def shape(chunks: list[AIMessageChunk]) -> list[tuple[Any, ...]]:
        return [(c.content, c.tool_call_chunks, c.response_metadata) for c in chunks]

    assert shape(first) == shape(second)


async def test_sync_stream_invoke_and_ainvoke_agree_with_astream() -> None:
    model = _model()
    messages: list[BaseMessage] = [SYSTEM, HumanMessage("ideas for a name for my cat")]
    _, streamed = await _stream(model, messages)

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
    model = _model(first_token_delay_s=0.05, token_delay_s=0.005)

    started = time.monotonic()
    chunks, _ = await _stream(model, [HumanMessage("add a note buy milk")])
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
    _, reply = await _stream(bound, [HumanMessage("add a note tea")])
    assert reply.tool_calls[0]["args"] == {"text": "tea"}


async def test_input_tokens_are_the_words_of_the_history_as_it_is_now() -> None:
    # Counts of messages seen before are kept per message object while its text stays the
    # same string; a message whose text was replaced is counted again.
    question = HumanMessage("please list my notes")
    history: list[BaseMessage] = [SYSTEM, question]
    words = len(SYSTEM.text.split()) + 4
    for _ in range(2):
        _chunks, reply = await _stream(_model(), history)
        assert reply.usage_metadata is not None
        assert reply.usage_metadata["input_tokens"] == words

    question.content = "list my notes"
    _chunks, reply = await _stream(_model(), history)
    assert reply.usage_metadata is not None
    assert reply.usage_metadata["input_tokens"] == words - 1
