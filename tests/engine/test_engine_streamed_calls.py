"""Tool calls put together from a provider's stream (issue 9 §5).

Some OpenAI-compatible servers stream every tool call of a turn on ``index`` 0, each starting
with its own ``id``. Driven end to end: ``ChatOpenAI`` (langchain-openai) against the scripted
stub server on loopback, Interlock's live server, the cards and the stored calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from langchain_core.messages import AIMessageChunk
from langchain_core.messages.tool import tool_call_chunk

from interlock.engine.proposals import assemble_calls, read_proposals
from interlock.settings import Settings
from support.live import live_server
from support.openai_stub import OpenAIStub, StubReply, StubToolCall
from support.sse import collect, terminals

SettingsMaker = Callable[..., Settings]


@pytest.fixture
def openai_stub() -> Iterator[tuple[OpenAIStub, str]]:
    stub = OpenAIStub()
    with stub.running() as base_url:
        yield stub, base_url


def _piece(
    index: int | None, args: str, *, call_id: str | None = None, name: str | None = None
) -> AIMessageChunk:
    return AIMessageChunk(
        content="",
        tool_call_chunks=[tool_call_chunk(name=name, args=args, id=call_id, index=index)],
    )


@pytest.mark.parametrize("same_index", [True, False], ids=["one-index", "own-indexes"])
async def test_two_calls_streamed_by_chat_openai_both_reach_cards_and_records(
    openai_stub: tuple[OpenAIStub, str], make_settings: SettingsMaker, same_index: bool
) -> None:
    stub, base_url = openai_stub
    stub.add_reply(
        StubReply(
            text_tokens=["Adding ", "both."],
            tool_calls=[
                StubToolCall("call_a", "notes_add", ['{"te', 'xt": "buy ', 'milk"}']),
                StubToolCall("call_b", "notes_add", ['{"text"', ': "call ', 'mum"}']),
            ],
            same_index=same_index,
        )
    )
    stub.add_reply(StubReply(text_tokens=["Both added."]))
    settings = make_settings(
        model="openai:gpt-4o-mini", model_base_url=base_url, model_api_key="test"
    )

    async with live_server(settings) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add buy milk and call mum")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        cards = [e["tool_call"] for e in log.of("tool_call.interrupted")]
        assert [(c["name"], c["proposed_args"]) for c in cards] == [
            ("notes.add", {"text": "buy milk"}),
            ("notes.add", {"text": "call mum"}),
        ]
        for card in cards:
            response = await server.decide(card["id"], type="approve")
            assert response.status_code == 200, response.text
        await server.idle()
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()

    stored = [c for m in detail["messages"] for c in m["tool_calls"]]
    assert [(c["name"], c["proposed_args"], c["status"]) for c in stored] == [
        ("notes.add", {"text": "buy milk"}, "succeeded"),
        ("notes.add", {"text": "call mum"}, "succeeded"),
    ]
    # The model's next request carries both calls and both tool messages.
    messages = stub.requests[-1].body["messages"]
    assistant = next(m for m in messages if m["role"] == "assistant" and m.get("tool_calls"))
    assert [c["function"]["name"] for c in assistant["tool_calls"]] == ["notes_add", "notes_add"]
    assert sum(1 for m in messages if m["role"] == "tool") == 2


def test_id_less_pieces_continue_the_call_last_started_on_their_index() -> None:
    chunks = [
        _piece(0, "", call_id="call_a", name="notes_add"),
        _piece(0, '{"text": '),
        _piece(1, "", call_id="call_b", name="notes_delete"),
        _piece(0, '"milk"}'),
        _piece(1, '{"id": 3}'),
        # A new id on index 0: a third call, whose id-less pieces are its own.
        _piece(0, "", call_id="call_c", name="notes_list"),
        _piece(0, "{}"),
        # The same id again continues its call (some servers repeat it on every piece).
        _piece(1, "", call_id="call_b"),
    ]

    calls = assemble_calls(chunks)

    assert [(c.id, c.name, c.args, c.index) for c in calls] == [
        ("call_a", "notes_add", '{"text": "milk"}', 0),
        ("call_b", "notes_delete", '{"id": 3}', 1),
        ("call_c", "notes_list", "{}", 0),
    ]
    assert [(p.name, p.args) for p in read_proposals(chunks)] == [
        ("notes_add", {"text": "milk"}),
        ("notes_delete", {"id": 3}),
        ("notes_list", {}),
    ]


def test_a_call_without_id_takes_the_id_of_a_later_piece_and_pieces_without_index_stand_alone() -> (
    None
):
    chunks = [
        _piece(0, '{"a"', name="f"),
        _piece(0, ": 1}", call_id="call_late"),
        _piece(None, "{}", name="g"),
        _piece(None, "{}", name="h"),
    ]

    calls = assemble_calls(chunks)

    assert [(c.id, c.name, c.args) for c in calls] == [
        ("call_late", "f", '{"a": 1}'),
        (None, "g", "{}"),
        (None, "h", "{}"),
    ]


def test_whole_tool_calls_without_chunks_are_read_as_they_are() -> None:
    chunk = AIMessageChunk(content="", tool_call_chunks=[])
    chunk.tool_calls = [
        {"name": "notes_add", "args": {"text": "x"}, "id": "c1", "type": "tool_call"}
    ]

    (proposal,) = read_proposals([chunk])

    assert (proposal.name, proposal.args, proposal.raw_args) == (
        "notes_add",
        {"text": "x"},
        '{"text": "x"}',
    )


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ('{"text": ' + "[" * 5_000 + "]" * 5_000 + "}", "nested too deeply"),
        ('{"n": 1' + "0" * 4_999 + "}", "a number in it is too long to read"),
        ("{text: 1}", "every name must be in double quotes"),
    ],
)
def test_arguments_that_cannot_be_read_are_a_parse_error_not_a_crash(
    args: str, problem: str
) -> None:
    """A model's arguments nested 5,000 deep raised RecursionError (and a 5,000-digit number
    ValueError) out of ``read_proposals``, failing the run as the model's fault."""
    chunks = [_piece(0, "", call_id="call_a", name="notes_add"), _piece(0, args)]

    (proposal,) = read_proposals(chunks)

    assert proposal.args is None
    assert proposal.parse_error is not None and problem in proposal.parse_error
