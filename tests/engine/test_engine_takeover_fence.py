"""Engine: a worker whose heartbeat came late, and another worker's sweep.

Under load a live worker's heartbeat was late; another worker's sweep took its runs over
(``server_restarted``) while the first went on writing: a second answer, or, when the run
had just completed, a takeover run holding the conversation so the person's next message got
409 ``run_active``. Here worker A's run is held mid-step through a seam (its answer's write
waits), A's heartbeat is made older than the cutoff, and a second engine on the same
database (worker B) sweeps:

* a run taken over writes nothing more on A (its answer is fenced): one answer, the tool ran
  once, and the next message is accepted;
* a sweep whose read of the heartbeats was late re-checks them in the repair's transaction,
  and a run that ended meanwhile is left alone (no takeover run, the next message goes in).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import col, select

from interlock.api.services import Services
from interlock.engine.answers import AnswerStore
from interlock.engine.recovery import recover_runs, repair_run, stale_runs
from interlock.engine.workers import EXPIRY
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import Event, Message, Run, Worker
from interlock.storage.models import utcnow
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import collect, terminals
from support.waits import wait_until

LEASE_S = 600.0  # A's own heartbeat thread stays quiet during the test: the test moves it
WAIT_S = 60.0  # a bound for a loaded CI machine; passing runs never reach it


class HeldAnswer:
    """A seam: the next answer written by ``AnswerStore.store`` waits until released."""

    def __init__(self) -> None:
        self.armed = False
        self.entered = threading.Event()
        self.release = threading.Event()

    def wrap(self, original: Any) -> Any:
        def store(store_self: AnswerStore, *args: Any, **kwargs: Any) -> str:
            if self.armed:
                self.armed = False
                self.entered.set()
                assert self.release.wait(WAIT_S), "the test never released the answer"
            return str(original(store_self, *args, **kwargs))

        return store

    async def reached(self) -> None:
        assert await asyncio.to_thread(self.entered.wait, WAIT_S), "the answer was never written"


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[HeldAnswer]:
    seam = HeldAnswer()
    monkeypatch.setattr(AnswerStore, "store", seam.wrap(AnswerStore.store))
    try:
        yield seam
    finally:
        seam.release.set()


@asynccontextmanager
async def worker_b(settings: Settings, model: ScriptedChatModel) -> AsyncIterator[Services]:
    """A second worker's engine on the same database (its sweep and its runs)."""
    services = Services.build(settings, model=model)
    services.engine.use_running_loop()
    try:
        yield services
    finally:
        await services.engine.aclose()
        services.db.dispose()


@contextmanager
def late_heartbeat(server: LiveServer) -> Iterator[None]:
    """Make worker A's heartbeat older than any cutoff (as if it was held back)."""
    with server.services.db.session() as session:
        session.exec(  # type: ignore[call-overload]
            update(Worker)
            .where(col(Worker.id) == server.services.engine.worker_id)
            .values(heartbeat_at=utcnow() - timedelta(seconds=3 * LEASE_S))
        )
        session.commit()
    yield


def _rows(server: LiveServer, conversation_id: str) -> tuple[list[Run], list[Message], list[Event]]:
    with server.services.db.session() as session:
        runs = session.exec(
            select(Run).where(Run.conversation_id == conversation_id).order_by(col(Run.created_at))
        ).all()
        messages = session.exec(
            select(Message)
            .where(Message.conversation_id == conversation_id)
            .order_by(col(Message.id))
        ).all()
        events = session.exec(
            select(Event).where(Event.conversation_id == conversation_id).order_by(col(Event.seq))
        ).all()
        return list(runs), list(messages), list(events)


async def test_engine_a_run_taken_over_mid_step_writes_nothing_more_and_its_tool_ran_once(
    make_settings: Any, held: HeldAnswer
) -> None:
    settings = make_settings(run_lease_s=LEASE_S)
    model_a = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "once"})), "Added (A)."]
    )
    async with live_server(settings, model=model_a) as a:
        conversation_id = await a.new_conversation()
        await a.say(conversation_id, "add a note once")
        log = await collect(a.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        call = log.of("tool_call.interrupted")[0]["tool_call"]
        await a.idle()
        held.armed = True  # the resumed run's answer (after the tool ran) waits
        assert (await a.decide(call["id"], type="approve")).status_code == 200
        await held.reached()

        model_b = ScriptedChatModel(responses=["Added (B)."])
        with late_heartbeat(a):
            async with worker_b(settings, model_b) as b:
                found = await b.engine.leases.sweep()
                assert found is not None and len(found.repaired) == 1
                if not a.services.db.is_sqlite:  # told at once (NOTIFY), not at its next sweep
                    task = a.services.engine.task_of(found.repaired[0])
                    assert task is not None
                    await wait_until(
                        lambda: task.cancelling() > 0, timeout_s=WAIT_S, what="the abandon"
                    )
                await b.engine.wait_idle(WAIT_S)
                held.release.set()  # A's answer now finds its run taken over
                await a.idle()

        runs, messages, events = _rows(a, conversation_id)
        assert [(r.trigger, str(r.status), r.error_code) for r in runs] == [
            ("message", "paused", None),
            ("resume", "failed", "server_restarted"),
            ("takeover", "completed", None),
        ]
        assert [(str(m.role), m.content) for m in messages] == [
            ("user", "add a note once"),
            ("assistant", "Adding."),
            ("tool", messages[2].content),
            ("assistant", "Added (B)."),
        ]
        assert [text for _, text in stored_notes(a.services.db)] == ["once"]  # ran once
        taken = runs[1].id
        ended_at = next(e.seq for e in events if e.run_id == taken and e.type == "run.failed")
        assert [e.type for e in events if e.run_id == taken and e.seq > ended_at] == []
        # The person's next message is accepted.
        await a.say(conversation_id, "thanks")


async def test_engine_a_late_sweep_leaves_a_live_or_ended_run_alone(
    make_settings: Any, held: HeldAnswer
) -> None:
    settings = make_settings(run_lease_s=LEASE_S)
    model_a = ScriptedChatModel(responses=["Hello.", "Again."])
    async with live_server(settings, model=model_a) as a:
        conversation_id = await a.new_conversation()
        held.armed = True
        run_id = (await a.say(conversation_id, "hi"))["run_id"]
        await held.reached()
        async with worker_b(settings, ScriptedChatModel(responses=[])) as b:
            # B read A's heartbeat while it was late ...
            with late_heartbeat(a):
                stale = await b.db.run(stale_runs, b.engine, {b.engine.worker_id})
            assert [s[0] for s in stale] == [run_id]
            # ... A beat since: the repair's own check sees it, the run is left alone.
            await asyncio.to_thread(a.services.engine.leases.renew)
            cutoff = utcnow() - timedelta(seconds=LEASE_S * EXPIRY)
            _, conv, _, owner, _ = stale[0]
            assert not await b.db.run(repair_run, b.engine, run_id, conv, owner, cutoff)
            # The run completes; a repair arriving after that changes nothing either.
            held.release.set()
            log = await collect(a.client, conversation_id, until=terminals(1))
            assert log.types[-1] == "run.completed", log.types
            assert not await b.db.run(repair_run, b.engine, run_id, conv, owner, None)
            found = await b.db.run(recover_runs, b.engine, {b.engine.worker_id})
            assert found.repaired == [] and found.takeover == []
        # The next message, sent right after run.completed, is accepted.
        await a.say(conversation_id, "again")
        runs, _, _ = _rows(a, conversation_id)
        assert [r.trigger for r in runs] == ["message", "message"]
