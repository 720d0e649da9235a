"""Engine on PostgreSQL: a decision that resumes its run costs three round trips.

Under load every round trip costs the deciding thread a wait for the GIL, so a decision's
latency follows its round trips (README, Benchmark). Counted on the deciding thread while the
decision's transaction runs, as ``bench/cycle_counts.py`` counts them: each statement sent on
its own, each batch of ``storage.write_behind`` (queued writes, ``send``, the ``COMMIT``), each
audit batch, each ``COMMIT`` or ``ROLLBACK`` sent alone and each ``NOTIFY`` sent after it:

1. the read of everything the decision needs;
2. the lock of the call with the decision's row, the conversation's event sequence held and
   the resume run's claim;
3. the events, the run's row, the audit chain's batch, the ``COMMIT`` and the ``NOTIFY``.

The decision, its events (one sequence each, in order) and the resumed run are checked too,
so a round trip saved by skipping work fails here.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event

from interlock.audit import chain
from interlock.engine import decisions
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import write_behind
from support.live import live_server
from support.sse import collect, terminals

MAX_DECISION_ROUND_TRIPS = 3


@contextmanager
def _round_trips_of_decisions(
    monkeypatch: pytest.MonkeyPatch, services: Any
) -> Iterator[list[str]]:
    """Collect the PostgreSQL round trips made while a decision's transaction runs."""
    import psycopg

    trips: list[str] = []
    local = threading.local()

    def counting() -> bool:
        return bool(getattr(local, "on", False))

    real_record = decisions._record

    def record(*args: Any) -> Any:
        local.on = True
        try:
            return real_record(*args)
        finally:
            local.on = False

    capture = getattr(write_behind, "_CAPTURE", None)

    def statement(conn: Any, cursor: Any, text: str, *_args: Any) -> None:
        # A statement queued (told with no cursor, or while captured) goes out with a batch.
        if counting() and cursor is not None and (capture is None or capture not in conn.info):
            trips.append(f"statement {text.split()[0]}")

    real_run = write_behind._run

    def run(connection: Any, queue: list[Any], **kwargs: Any) -> Any:
        if counting():
            trips.append("batch")
        return real_run(connection, queue, **kwargs)

    real_append = chain.append_in_database

    def append(session: Any, pending: Any, *, commit: bool) -> None:
        if counting():
            trips.append("audit batch")
        real_append(session, pending, commit=commit)

    def ended(end: Any, kind: str) -> Any:
        from psycopg.pq import TransactionStatus

        def counted(driver: Any) -> None:
            if counting() and driver.info.transaction_status != TransactionStatus.IDLE:
                trips.append(kind)
            end(driver)

        return counted

    notifier = services.db.notifier
    real_send = notifier.send

    def send(channel: str, payloads: list[str]) -> bool:
        if counting() and payloads:
            trips.append("NOTIFY")
        return bool(real_send(channel, payloads))

    monkeypatch.setattr(decisions, "_record", record)
    monkeypatch.setattr(write_behind, "_run", run)
    monkeypatch.setattr(chain, "append_in_database", append)
    monkeypatch.setattr(psycopg.Connection, "commit", ended(psycopg.Connection.commit, "COMMIT"))
    monkeypatch.setattr(
        psycopg.Connection, "rollback", ended(psycopg.Connection.rollback, "ROLLBACK")
    )
    monkeypatch.setattr(notifier, "send", send)
    engine = services.db.engine
    event.listen(engine, "before_cursor_execute", statement)
    try:
        yield trips
    finally:
        event.remove(engine, "before_cursor_execute", statement)


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
        with _round_trips_of_decisions(monkeypatch, server.services) as trips:
            response = await server.decide(call["id"], type="approve")
        assert response.status_code == 200, response.text
        assert response.json()["decision"]["type"] == "approve"
        assert 0 < len(trips) <= MAX_DECISION_ROUND_TRIPS, trips
        log = await collect(server.client, conversation_id, until=terminals(1), last_event_id=last)
        assert log.types[:2] == ["tool_call.decided", "run.started"], log.types
        assert log.types[-1] == "run.completed", log.types
        seqs = [int(str(frame.id)) for frame in log.frames]
        assert seqs == list(range(int(last) + 1, int(last) + 1 + len(seqs))), seqs
