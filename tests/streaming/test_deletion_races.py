"""Deleting a conversation while a decision or a message is being posted (PostgreSQL).

On PostgreSQL a decision and a delete run side by side (other threads, other workers). A
decision locks its call, then the conversation to claim the resumed run; the delete takes
the same order. Whatever the interleaving, each request gets a real answer: the decision
200 and the delete 409 ``run_active``, or the delete 204 and the decision 404 ``not_found``,
never a 500 or a deadlock's 503 ``database_busy``. (SQLite writes one transaction at a time,
so the two never interleave there.) A message posted as the conversation is deleted is
404 ``not_found``, not 409 ``run_active``: no run was ever active; so is a rename (not a
500), so is an undo (not 409 ``already_undone``), and a grant for the conversation is deleted
with it or refused (never left behind).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from interlock.api.routers import conversations
from interlock.engine import decisions, messages, outside, oversight
from interlock.settings import Settings
from interlock.store import undo
from support.live import LiveServer, live_server
from support.sse import collect, terminals

WAIT_S = 60.0  # a bound for a loaded CI machine; passing runs never reach it


def _postgres_only(db_url: str) -> None:
    if db_url.startswith("sqlite"):
        pytest.skip(
            "SQLite writes one transaction at a time: a delete never overlaps another write"
        )


async def _paused(server: LiveServer) -> tuple[str, str]:
    """A conversation whose run waits on a ``notes.add`` card: (its id, the call's id)."""
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, "add a note raced")
    log = await collect(server.client, conversation_id, until=terminals(1))
    assert log.types[-1] == "run.paused", log.types
    await server.idle()
    return conversation_id, str(log.of("tool_call.interrupted")[0]["tool_call"]["id"])


def _wait_for_a_lock_wait(db_url: str, wait_s: float = WAIT_S) -> None:
    """Return once a session of this database waits for a lock (bounded by ``wait_s``)."""
    probe = create_engine(db_url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        deadline = time.monotonic() + wait_s
        with probe.connect() as connection:
            while time.monotonic() < deadline:
                waiting = connection.execute(
                    text(
                        "SELECT count(*) FROM pg_stat_activity "
                        "WHERE datname = current_database() AND wait_event_type = 'Lock'"
                    )
                ).scalar_one()
                connection.commit()
                if waiting:
                    return
                time.sleep(0.01)
        raise AssertionError("the delete never waited for the decision's lock")
    finally:
        probe.dispose()


def _deleting_at_first_call(
    server: LiveServer, conversation_id: str, step: Callable[..., Any], *, after: bool = False
) -> tuple[Callable[..., Any], list[httpx.Response]]:
    """Wrap ``step`` (a request's step, run on a database thread) so that its first call
    deletes the conversation through the API and waits for the answer, before the step goes
    on (or, with ``after``, right after it). Returns the wrapper and the delete's answers."""
    loop = asyncio.get_running_loop()
    deleted: list[httpx.Response] = []

    def delete() -> None:
        if not deleted:
            future = asyncio.run_coroutine_threadsafe(
                server.client.delete(f"/api/conversations/{conversation_id}"), loop
            )  # type: ignore[arg-type]
            deleted.append(future.result(WAIT_S))

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if not after:
            delete()
        result = step(*args, **kwargs)
        if after:
            delete()
        return result

    return wrapped, deleted


async def test_a_delete_after_a_decision_locked_its_call_is_refused_not_deadlocked(
    make_settings: Callable[..., Settings],
    db_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _postgres_only(db_url)
    async with live_server(make_settings()) as server:
        conversation_id, call_id = await _paused(server)
        loop = asyncio.get_running_loop()
        deleting: list[asyncio.Future[httpx.Response]] = []
        original = decisions.record_outcome

        def delete_meanwhile(*args: Any, **kwargs: Any) -> Any:
            # The decision holds its call's lock (database thread): the delete starts now and
            # waits for a lock; then the decision goes on to claim the conversation's run.
            if not deleting:
                deleting.append(
                    asyncio.run_coroutine_threadsafe(
                        server.client.delete(f"/api/conversations/{conversation_id}"), loop
                    )  # type: ignore[arg-type]
                )
                _wait_for_a_lock_wait(db_url)
            return original(*args, **kwargs)

        monkeypatch.setattr(decisions, "record_outcome", delete_meanwhile)
        decided = await server.decide(call_id, type="approve")
        deleted = await asyncio.wait_for(asyncio.wrap_future(deleting[0]), WAIT_S)  # type: ignore[arg-type]

        assert decided.status_code == 200, decided.text
        assert deleted.status_code == 409, deleted.text
        assert deleted.json()["error"]["code"] == "run_active"
        await server.idle()
        detail = await server.client.get(f"/api/conversations/{conversation_id}")
        assert detail.status_code == 200
        assert detail.json()["status"] == "idle"


async def _decide(server: LiveServer, _conversation_id: str, call_id: str) -> httpx.Response:
    return await server.decide(call_id, type="approve")


async def _post_message(server: LiveServer, conversation_id: str, _call: str) -> httpx.Response:
    url = f"/api/conversations/{conversation_id}/messages"
    return await server.client.post(url, json={"content": "hello"})


async def _rename(server: LiveServer, conversation_id: str, _call: str) -> httpx.Response:
    url = f"/api/conversations/{conversation_id}"
    return await server.client.patch(url, json={"title": "Renamed"})


@pytest.mark.parametrize(
    ("module", "step", "send"),
    [
        # Between the decision's read of its call and its lock, the delete commits.
        pytest.param(decisions, "check_content", _decide, id="decision"),
        # Between the message's read of its conversation and its claim (not 409 run_active).
        pytest.param(messages, "start_switch", _post_message, id="message"),
        # The rename is under way (database thread); the delete commits first (not a 500).
        pytest.param(conversations, "utcnow", _rename, id="rename"),
    ],
)
async def test_a_request_on_a_conversation_deleted_while_it_ran_is_404(
    make_settings: Callable[..., Settings],
    db_url: str,
    monkeypatch: pytest.MonkeyPatch,
    module: Any,
    step: str,
    send: Callable[[LiveServer, str, str], Awaitable[httpx.Response]],
) -> None:
    _postgres_only(db_url)
    async with live_server(make_settings()) as server:
        if send is _decide:  # a decision needs a call waiting for it
            conversation_id, call_id = await _paused(server)
        else:
            conversation_id, call_id = await server.new_conversation(), ""
        delete_first, deleted = _deleting_at_first_call(
            server, conversation_id, getattr(module, step)
        )
        monkeypatch.setattr(module, step, delete_first)
        answer = await send(server, conversation_id, call_id)

        assert deleted[0].status_code == 204, deleted[0].text
        assert answer.status_code == 404, answer.text
        assert answer.json()["error"]["code"] == "not_found"
        gone = await server.client.get(f"/api/conversations/{conversation_id}")
        assert gone.status_code == 404


async def test_a_grant_made_as_its_conversation_is_deleted_is_not_left_behind(
    make_settings: Callable[..., Settings],
    db_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _postgres_only(db_url)
    async with live_server(make_settings()) as server:
        conversation_id = await server.new_conversation()
        loop = asyncio.get_running_loop()
        original = oversight.start_switch
        deleting: list[Any] = []

        def delete_meanwhile(*args: Any, **kwargs: Any) -> Any:
            # The grant has read its conversation (database thread); the delete starts now
            # and either waits for it or is done before the grant goes on.
            if not deleting:
                future = asyncio.run_coroutine_threadsafe(
                    server.client.delete(f"/api/conversations/{conversation_id}"), loop
                )  # type: ignore[arg-type]
                deleting.append(future)
                deadline = time.monotonic() + WAIT_S
                while not future.done() and time.monotonic() < deadline:
                    try:
                        _wait_for_a_lock_wait(db_url, WAIT_S / 10)
                        break
                    except AssertionError:
                        continue
            return original(*args, **kwargs)

        monkeypatch.setattr(oversight, "start_switch", delete_meanwhile)
        granted = await server.client.post(
            "/api/grants",
            json={"tool": "notes.add", "scope": "conversation", "conversation_id": conversation_id},
        )
        deleted = await asyncio.wait_for(asyncio.wrap_future(deleting[0]), WAIT_S)

        assert deleted.status_code == 204, deleted.text
        assert granted.status_code in (201, 404), granted.text
        grants = (await server.client.get("/api/grants")).json()
        assert [g for g in grants if g["conversation_id"] == conversation_id] == []


async def test_an_undo_of_a_call_whose_conversation_was_deleted_meanwhile_is_404(
    make_settings: Callable[..., Settings],
    db_url: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _postgres_only(db_url)
    async with live_server(make_settings()) as server:
        conversation_id, call_id = await _paused(server)
        approved = await server.decide(call_id, type="approve")
        assert approved.status_code == 200, approved.text
        await collect(server.client, conversation_id, until=terminals(2))
        await server.idle()
        # The undo has read its call (database thread); the delete commits first.
        delete_after, deleted = _deleting_at_first_call(
            server, conversation_id, undo._owned_call, after=True
        )
        monkeypatch.setattr(undo, "_owned_call", delete_after)
        undone = await server.client.post(f"/api/tool-calls/{call_id}/undo")

        assert deleted[0].status_code == 204, deleted[0].text
        assert undone.status_code == 404, undone.text
        assert undone.json()["error"]["code"] == "not_found"


async def test_an_mcp_call_placed_as_its_record_conversation_is_deleted_gets_a_new_one(
    make_settings: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On either backend: the record conversation is deleted after the call looked it up."""
    async with live_server(make_settings()) as server:
        engine = server.services.engine
        user_id = (await server.client.get("/api/me")).json()["id"]
        ada = engine.employee_of("assistant")

        async def place(text: str) -> outside.Placed:
            return await engine.outside.place(
                user_id=user_id,
                employee=ada,
                client_name="Test",
                tool_name="notes.add",
                args={"text": text},
            )

        first = await place("one")
        original = outside.prepare_calls
        deleted: list[httpx.Response] = []

        async def delete_first(*args: Any, **kwargs: Any) -> Any:
            if not deleted:
                deleted.append(
                    await server.client.delete(f"/api/conversations/{first.conversation_id}")
                )
            return await original(*args, **kwargs)

        monkeypatch.setattr(outside, "prepare_calls", delete_first)
        second = await place("two")

        assert deleted[0].status_code == 204, deleted[0].text
        assert second.conversation_id != first.conversation_id
        detail = await server.client.get(f"/api/conversations/{second.conversation_id}")
        assert detail.status_code == 200
        calls = [c["id"] for m in detail.json()["messages"] for c in m["tool_calls"]]
        assert calls == [second.call.id]
