"""Engine on PostgreSQL: the round trips of each step of a HITL cycle.

Under load every round trip costs a step's thread a wait for the GIL, and PostgreSQL's CPU
follows them (README, Benchmark (d)), so each step's count is pinned here and cannot grow
unnoticed (``support.round_trips`` counts as ``bench/cycle_counts.py`` does). A cycle: a new
message, the model proposing ``notes.add`` (paused), the approval (counted in
``test_engine_decision_round_trips``), the resumed run's tools step, the tool's result stored,
and the model's answer. What each step costs:

* the message: the conversation with the person's switch; the run's claim with the sequence
  held and whether a call is open; the run and message rows; the events with the ``COMMIT``;
* a model step's input: the conversation with the owner's switch, the undone calls and the
  history (messages and their calls; a cached history also its count), in one round trip;
* the model's answer: the run held, the sequence held and the answer's row in one round trip;
  with calls the grants and the calls declined before are read; the run's end, the new calls
  and the events with the ``COMMIT``;
* the resumed run's tools step: the conversation and the calls with their decisions in one
  round trip; the run held, the call claimed and the sequence held in a second; the events
  with the ``COMMIT``;
* the tool's result: the call closed only if still running (its row comes back), the
  sequence held and its tool message, in one round trip; the events with the ``COMMIT``;
* the tool's own write (``notes.add`` through ``ctx.store.add``): the entry's insert (its key
  is in the change's label); the change, the call's undo state and the entry's key, value and
  last change with the ``COMMIT``.

The run's events are checked too (every sequence once, in order), so a round trip saved by
skipping work fails here.
"""

from __future__ import annotations

import pytest

from interlock.engine import answers, runner
from interlock.engine.calls import CallExecutor
from interlock.engine.graph import _Nodes
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.store.tool_store import ToolStore
from support.live import LiveServer, live_server
from support.round_trips import round_trips_of
from support.sse import EventLog, collect, terminals

MAX_ROUND_TRIPS = {
    "message": [4],
    "model input": [1, 1],
    "answer": [4, 2],
    "tools step": [3],
    "tool result": [2],
    "tool store": [2],
}
"""Most round trips of each call of each step, in the order the cycle makes them."""


async def test_engine_each_step_of_a_hitl_cycle_keeps_to_its_round_trips(
    engine_settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    if engine_settings.database_url.startswith("sqlite"):
        pytest.skip("round trips are PostgreSQL's (SQLite runs in the process)")
    proposal = scripted_message("Adding.", ("notes_add", {"text": "steps"}))
    model = ScriptedChatModel(responses=[proposal, "Added.", proposal, "Added."])
    watched = {
        "message": (runner, "store_message"),
        "model input": (_Nodes, "_model_input"),
        "answer": (answers.AnswerStore, "store"),
        "tools step": (_Nodes, "_tools_input"),
        "tool result": (CallExecutor, "_store_outcome"),
        "tool store": (ToolStore, "add"),
    }
    async with live_server(engine_settings, model=model) as server:
        await _cycle(server)  # first use: the person's rows are made, caches filled
        with round_trips_of(monkeypatch, server.services, watched) as counted:
            log = await _cycle(server)
    assert log.types[-1] == "run.completed", log.types
    assert [int(str(frame.id)) for frame in log.frames] == list(range(1, len(log.frames) + 1))
    completed = log.of("tool_call.completed")[0]["tool_call"]
    assert completed["status"] == "succeeded", completed
    made = {label: [len(trips) for trips in calls] for label, calls in counted.items()}
    assert made.keys() == MAX_ROUND_TRIPS.keys()
    for label, most in MAX_ROUND_TRIPS.items():
        assert len(made[label]) == len(most), (label, made, counted[label])
        assert all(0 < n <= m for n, m in zip(made[label], most, strict=True)), (
            label,
            made,
            counted[label],
        )


async def _cycle(server: LiveServer) -> EventLog:
    """A fresh conversation's HITL cycle; its events up to ``run.completed``."""
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, "add a note steps")
    log = await collect(server.client, conversation_id, until=terminals(1))
    assert log.types[-1] == "run.paused", log.types
    call = log.of("tool_call.interrupted")[0]["tool_call"]
    response = await server.decide(call["id"], type="approve")
    assert response.status_code == 200, response.text
    log = await collect(server.client, conversation_id, until=terminals(2))
    await server.idle()
    return log
