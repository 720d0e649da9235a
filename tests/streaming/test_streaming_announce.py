"""The payload of an event notification between workers, and what a listener reads from it.

* It carries the events' rows when the whole payload fits PostgreSQL's limit: a listener
  gets each event's sequence, type, run and data back exactly as stored.
* Past the limit (counted in UTF-8 bytes, not characters) it is the range alone, and so is it
  for a line it could not carry; a listener reads those rows from storage.
* A payload of the range alone (what a worker of an earlier version sends) still parses,
  with no rows; anything else is malformed.
"""

from __future__ import annotations

from interlock.streaming import StoredEvent
from interlock.streaming.announce import MAX_PAYLOAD_BYTES, announcement, announcements, parse
from interlock.streaming.events import MessageDelta, RunStarted


def _stored(seq: int, event: MessageDelta | RunStarted) -> StoredEvent:
    event.seq = seq
    return StoredEvent(seq=seq, type=event.type, data=event.model_dump_json(), run_id=event.run_id)


def test_rows_that_fit_come_back_exactly_as_stored() -> None:
    events = [
        _stored(7, RunStarted(run_id="run_1", trigger="resume")),
        _stored(8, MessageDelta(run_id="run_1", delta="two words\nand a line\u2028break")),
        _stored(9, MessageDelta(delta="no run")),
    ]
    parsed = parse(announcement("origin", "conv_1", 7, 9, events))
    assert parsed is not None
    assert (parsed.origin, parsed.conversation_id, parsed.first, parsed.last) == (
        "origin",
        "conv_1",
        7,
        9,
    )
    assert parsed.rows == [(e.seq, e.type, e.run_id, e.data) for e in events]


def test_one_payload_per_conversation_of_a_transaction() -> None:
    a1, b1, a2 = (
        _stored(1, MessageDelta(delta="a")),
        _stored(4, MessageDelta(delta="b")),
        _stored(2, MessageDelta(delta="c")),
    )
    payloads = announcements("o", [("a", a1), ("b", b1), ("a", a2)], {"a": (1, 2), "b": (4, 4)})
    parsed = [parse(p) for p in payloads]
    assert [(p.conversation_id, [r[0] for r in p.rows or []]) for p in parsed if p] == [
        ("a", [1, 2]),
        ("b", [4]),
    ]


def test_a_payload_past_the_limit_in_bytes_is_the_range_alone() -> None:
    head = "origin conv_1 1 1"
    # Fits in characters, not in UTF-8 bytes (three per character).
    wide = _stored(1, MessageDelta(delta="\u20ac" * (MAX_PAYLOAD_BYTES // 2)))
    assert len(wide.data) < MAX_PAYLOAD_BYTES
    assert announcement("origin", "conv_1", 1, 1, [wide]) == head
    long = _stored(1, MessageDelta(delta="x" * MAX_PAYLOAD_BYTES))
    assert announcement("origin", "conv_1", 1, 1, [long]) == head
    parsed = parse(head)
    assert parsed is not None and parsed.rows is None
    just = _stored(1, MessageDelta(delta="x" * (MAX_PAYLOAD_BYTES - 200)))
    payload = announcement("origin", "conv_1", 1, 1, [just])
    assert payload != head and len(payload.encode()) <= MAX_PAYLOAD_BYTES


def test_a_range_alone_or_odd_lines_parse_without_rows_and_garbage_is_malformed() -> None:
    assert parse("origin conv_1 3 4") is not None
    odd = parse("origin conv_1 3 4\nmessage.delta - {}")  # one line for two events
    assert odd is not None and odd.rows is None
    no_data = parse("origin conv_1 3 3\nmessage.delta")
    assert no_data is not None and no_data.rows is None
    assert parse("origin conv_1 3") is None
    assert parse("origin conv_1 three 4") is None
