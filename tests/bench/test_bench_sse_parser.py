"""The benchmark's event-stream parser (bench/sse.py) against the HTML standard's rules.

The loads of bench parts (c) and (d) check every event's id, type and data with it, so a
parser that drops, merges or splits events would make the delivery check lie.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest


def _load() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "bench" / "sse.py"
    spec = importlib.util.spec_from_file_location("bench_sse", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


sse = _load()

# Every line ending (CRLF, LF, CR), a byte order mark, comments, multi-line data, a field
# without a colon, an event without data (not dispatched), unknown fields, no space after ":".
STREAM = (
    b"\xef\xbb\xbf: ping\r\n"
    b'id: 1\r\nevent: run.started\r\ndata: {"a":\r\ndata: 1}\r\n\r\n'
    b": ping\n\n"
    b"id:2\nevent:empty\ndata\n\n"
    b"retry: 5\nevent: nothing\nfoo: bar\n\n"
    b"id: 3\revent: run.completed\rdata:  two spaces\r\r"
)
EVENTS = [
    sse.SseEvent("1", "run.started", '{"a":\n1}'),
    sse.SseEvent("2", "empty", ""),
    sse.SseEvent("3", "run.completed", " two spaces"),
]


def _parse(pieces: list[bytes]) -> tuple[list[Any], Any]:
    parser = sse.SseParser()
    events = [event for piece in pieces for event in parser.feed(piece)]
    return events, parser


def test_a_whole_stream_gives_each_event_with_its_id_type_and_data() -> None:
    events, parser = _parse([STREAM])
    assert events == EVENTS
    assert parser.last_id == "3"


@pytest.mark.parametrize("first", range(0, len(STREAM), 7))
def test_the_same_events_however_the_bytes_are_split(first: int) -> None:
    for second in range(first, len(STREAM) + 1):
        pieces = [STREAM[:first], STREAM[first:second], STREAM[second:]]
        assert _parse(pieces)[0] == EVENTS, (first, second)


def test_one_byte_at_a_time() -> None:
    assert _parse([bytes([b]) for b in STREAM])[0] == EVENTS


def test_an_event_is_dispatched_only_at_its_blank_line() -> None:
    parser = sse.SseParser()
    assert parser.feed(b"id: 7\nevent: x\ndata: {}\n") == []
    assert parser.feed(b"\n") == [sse.SseEvent("7", "x", "{}")]


def test_an_event_without_id_or_type_says_so_and_the_last_id_carries_over() -> None:
    events, parser = _parse([b"id: 4\ndata: a\n\ndata: b\n\nid: 5\0\ndata: c\n\n"])
    assert events == [
        sse.SseEvent("4", None, "a"),
        sse.SseEvent(None, None, "b"),
        sse.SseEvent(None, None, "c"),  # an id containing NUL is ignored
    ]
    assert parser.last_id == "4"
