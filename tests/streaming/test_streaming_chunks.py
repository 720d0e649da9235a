"""The SSE route's chunks (``event_chunks``): the frames a transaction wrote go out as one
piece, with exactly the bytes of the frames one by one, replayed or live."""

from __future__ import annotations

import asyncio

from interlock.storage import Conversation, Database, Event
from interlock.streaming import EventBus
from interlock.streaming.events import MessageDelta, RunStarted
from interlock.streaming.sse import event_chunks, event_frames

RUN_ID = "run_" + "1" * 32


def _conversation(database: Database) -> str:
    with database.session() as session:
        conversation = Conversation(owner_id="u1", employee="assistant")
        session.add(conversation)
        session.commit()
        return conversation.id


async def test_a_transactions_frames_go_out_as_one_piece_with_the_same_bytes(
    database: Database,
) -> None:
    bus = EventBus(database)
    conversation_id = _conversation(database)
    bus.publish(conversation_id, RunStarted(run_id=RUN_ID, trigger="message"))
    chunks = event_chunks(bus, conversation_id, 0)
    frames = event_frames(bus, conversation_id, 0)
    async with asyncio.timeout(30):
        replayed = await anext(chunks)
        assert replayed == (await anext(frames)).encode()

        live = asyncio.ensure_future(anext(chunks))
        await asyncio.sleep(0)
        assert not live.done()
        deltas = [MessageDelta(run_id=RUN_ID, delta=f"piece {i}") for i in range(3)]
        bus.publish_many(conversation_id, deltas)  # one transaction: one piece
        one_by_one = b"".join([(await anext(frames)).encode() for _ in deltas])
        assert await live == one_by_one
        assert one_by_one.count(b"event: message.delta") == 3
        await chunks.aclose()
        await frames.aclose()
    assert bus.subscriber_count(conversation_id) == 0


async def test_chunks_have_the_frames_bytes_whatever_the_stored_text(database: Database) -> None:
    """Line breaks (escaped by JSON, or raw in a row written some other way), the line
    separators JSON leaves raw, and non-ASCII text: a chunk is still the frames' own bytes."""
    bus = EventBus(database)
    conversation_id = _conversation(database)
    bus.publish(conversation_id, MessageDelta(run_id=RUN_ID, delta="a\nb\r\nc\u2028d\x85é🙂"))
    with database.session() as session:
        for seq, data in ((2, '{"text": "raw\nline"}'), (3, '{"text": "raw\r\nline\r"}')):
            session.add(
                Event(conversation_id=conversation_id, seq=seq, type="message.delta", data=data)
            )
        conversation = session.get(Conversation, conversation_id)
        assert conversation is not None
        conversation.last_event_seq = 3
        session.add(conversation)
        session.commit()
    chunks = event_chunks(bus, conversation_id, 0)
    frames = event_frames(bus, conversation_id, 0)
    async with asyncio.timeout(30):
        replayed = await anext(chunks)
        assert replayed == b"".join([(await anext(frames)).encode() for _ in range(3)])
        assert replayed.count(b"data: ") == 1 + 2 + 3  # raw line breaks split a data field
        await chunks.aclose()
        await frames.aclose()
