"""The text of a streamed answer: joined from text chunks, as merging them would give."""

from __future__ import annotations

from langchain_core.messages import AIMessageChunk
from langchain_core.messages.ai import add_ai_message_chunks
from langchain_core.messages.tool import tool_call_chunk

from interlock.engine.graph import _text_of
from interlock.engine.proposals import message_text


def _merged_text(chunks: list[AIMessageChunk]) -> str:
    return message_text(add_ai_message_chunks(chunks[0], *chunks[1:]).content)


def test_text_chunks_with_tool_call_pieces_give_the_merged_text() -> None:
    chunks = [
        AIMessageChunk(content="I'll "),
        AIMessageChunk(content="add \x00it\ud800."),
        AIMessageChunk(
            content="",
            tool_call_chunks=[tool_call_chunk(name="notes_add", args='{"te', id="c1", index=0)],
        ),
        AIMessageChunk(content="", tool_call_chunks=[tool_call_chunk(args='xt": "x"}', index=0)]),
        AIMessageChunk(content="", chunk_position="last"),
    ]
    assert _text_of(chunks) == _merged_text(chunks) == "I'll add \ufffdit\ufffd."


def test_content_blocks_are_merged_as_langchain_merges_them() -> None:
    chunks = [
        AIMessageChunk(content=[{"type": "text", "text": "Hel", "index": 0}]),
        AIMessageChunk(content=[{"type": "text", "text": "lo", "index": 0}]),
        AIMessageChunk(content=[{"type": "tool_use", "id": "t1", "index": 1}]),
        AIMessageChunk(content=" there"),
    ]
    assert _text_of(chunks) == _merged_text(chunks)
    assert _text_of(chunks).startswith("Hello")


def test_no_chunks_no_text() -> None:
    assert _text_of([]) == ""
