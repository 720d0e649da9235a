"""Engine on PostgreSQL: a decision that resumes its run costs three round trips.

Under load every round trip costs the deciding thread a wait for the GIL, so a decision's
latency follows its round trips (README, Benchmark). Counted on the deciding thread while the
decision's transaction runs (``support.round_trips``):

1. the read of everything the decision needs;
2. the lock of the call with the decision's row, the conversation's event sequence held and
   the resume run's claim;
3. the events, the run's row, the audit chain's batch, the ``COMMIT`` and the ``NOTIFY``.

The decision, its events (one sequence each, in order) and the resumed run are checked too,
so a round trip saved by skipping work fails here. Its thread polls its socket only for
results, about once per round trip (``storage/pg_wait.py``: each poll releases the GIL; 35
polls before), counted with psycopg's wait function.
"""

from __future__ import annotations

import pytest

from interlock.engine import decisions
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage.writer import is_urgent_thread
from support.live import live_server
from support.polls import count_polls
from support.round_trips import round_trips_of
from support.sse import collect, terminals

MAX_DECISION_ROUND_TRIPS = 3
MAX_DECISION_POLLS = 2 * MAX_DECISION_ROUND_TRIPS
"""A round trip's results may come in two reads; a poll for room to send is not made."""


async def test_engine_a_decision_that_resumes_its_run_is_three_round_trips(
    engine_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    if engine_settings.database_url.startswith("sqlite"):
        pytest.skip("round trips are PostgreSQL's (SQLite runs in the process)")
    model = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "trips"})), "Added."]
    )
    async with live_server(engine_settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add a note trips")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        call = log.of("tool_call.interrupted")[0]["tool_call"]
        last = str(log.frames[-1].id)
        await server.idle()
        watched = {"decision": (decisions, "_record")}
        polls = _request_thread_polls(monkeypatch)
        with round_trips_of(monkeypatch, server.services, watched) as counted:
            response = await server.decide(call["id"], type="approve")
        decision_polls = len(polls)
        (trips,) = counted["decision"]
        assert response.status_code == 200, response.text
        assert response.json()["decision"]["type"] == "approve"
        assert 0 < len(trips) <= MAX_DECISION_ROUND_TRIPS, trips
        assert len(trips) <= decision_polls <= MAX_DECISION_POLLS, decision_polls
        log = await collect(server.client, conversation_id, until=terminals(1), last_event_id=last)
        assert log.types[:2] == ["tool_call.decided", "run.started"], log.types
        assert log.types[-1] == "run.completed", log.types
        seqs = [int(str(frame.id)) for frame in log.frames]
        assert seqs == list(range(int(last) + 1, int(last) + 1 + len(seqs))), seqs


def _request_thread_polls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The socket polls psycopg makes on request threads from now on (one item each)."""
    return count_polls(monkeypatch, only=is_urgent_thread)
