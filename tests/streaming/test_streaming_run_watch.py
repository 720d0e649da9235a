"""A watch on one run (what an MCP caller waiting for its call uses): woken by that run's
events only, whoever wrote them, never by another run's events in the same conversation.

* Events committed here wake the watch of their run and leave the others asleep.
* Events of another process arrive through the listener (:meth:`EventBus.deliver` of rows read
  back with :meth:`EventBus.replay`, which keeps each event's run); the listener reads them
  for a conversation that only has run watches (:meth:`EventBus.is_followed`).
* A resync (the listener reconnected: anything may have been missed) wakes every watch.
"""

from __future__ import annotations

from interlock.storage import Conversation, Database
from interlock.streaming import EventBus
from interlock.streaming.events import RunStarted

ONE = "mcp_" + "1" * 32
TWO = "mcp_" + "2" * 32


def _conversation(database: Database) -> str:
    with database.session() as session:
        conversation = Conversation(owner_id="user_watch_test", employee="assistant")
        session.add(conversation)
        session.commit()
        return conversation.id


async def test_a_run_watch_wakes_only_for_its_own_run(database: Database) -> None:
    bus = EventBus(database)
    conversation_id = _conversation(database)
    assert not bus.is_followed(conversation_id)
    one, two = bus.watch_run(conversation_id, ONE), bus.watch_run(conversation_id, TWO)
    assert bus.is_followed(conversation_id)
    assert bus.subscriber_count(conversation_id) == 0  # streams only

    bus.publish(conversation_id, RunStarted(run_id=ONE, trigger="resume"))
    assert one.wakeup.is_set() and not two.wakeup.is_set()

    # Another process's event, read back from storage as the listener does.
    one.wakeup.clear()
    seq = bus.publish(conversation_id, RunStarted(run_id=TWO, trigger="resume"))
    two.wakeup.clear()
    [stored] = bus.replay(conversation_id, seq - 1, 1)
    assert stored.run_id == TWO
    bus.deliver(conversation_id, [stored])
    assert two.wakeup.is_set() and not one.wakeup.is_set()

    two.wakeup.clear()
    bus.resync_all()
    assert one.wakeup.is_set() and two.wakeup.is_set()

    bus.unwatch_run(one)
    bus.unwatch_run(one)  # twice is harmless
    one.wakeup.clear()
    bus.publish(conversation_id, RunStarted(run_id=ONE, trigger="resume"))
    assert not one.wakeup.is_set()
    assert bus.is_followed(conversation_id)
    bus.unwatch_run(two)
    assert not bus.is_followed(conversation_id)
