"""One undo step per write call: undo/redo of notes.add and notes.delete through ctx.store."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from langchain_core.messages import SystemMessage
from sqlmodel import select

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import Database, StoreChange, StoreEntry
from interlock.storage.users import create_user
from interlock.store import undo as undo_module
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import collect, terminals

SettingsMaker = Callable[..., Settings]
_racing = threading.local()


async def _approved(
    server: LiveServer, conversation_id: str, content: str, seen: int
) -> tuple[str, int]:
    """Say ``content``, approve the one card, wait for the run's end; return (call id, last seq)."""
    await server.say(conversation_id, content)
    log = await collect(server.client, conversation_id, until=terminals(1), last_event_id=str(seen))
    assert log.types[-1] == "run.paused", log.types
    [call] = [e["tool_call"]["id"] for e in log.of("tool_call.interrupted")]
    assert (await server.decide(call, type="approve")).status_code == 200
    await server.idle()
    detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    return call, int(detail["last_event_seq"])


async def _post(server: LiveServer, call_id: str, action: str, **kw: Any) -> Any:
    return await server.client.post(f"/api/tool-calls/{call_id}/{action}", **kw)


async def test_undo_and_redo_of_notes_add_and_the_model_hears_of_it(
    make_settings: SettingsMaker,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message("Adding.", ("notes_add", {"text": "buy milk"})),
            "Added.",
            scripted_message("Listing.", ("notes_list", {})),
            "You have no notes.",
        ]
    )
    async with live_server(make_settings(), model=model) as server:
        db: Database = server.services.db
        conversation_id = await server.new_conversation()
        add, _ = await _approved(server, conversation_id, "note: buy milk", 0)
        assert stored_notes(db) == [(1, "buy milk")]
        with db.session() as session:  # the entry names the call's change of it
            (entry,) = session.exec(select(StoreEntry)).all()
            (change,) = session.exec(select(StoreChange)).all()
        assert (entry.last_change_id, change.tool_call_id) == (change.id, add)
        assert change.label.startswith(f"note #{entry.key}"), change.label
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        [shown] = [c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == add]
        assert shown["undo"] == {"state": "available", "reason": None}

        undone = await _post(server, add, "undo")
        assert undone.status_code == 200, undone.text
        assert undone.json()["undo"]["state"] == "undone"
        assert stored_notes(db) == []

        again = await _post(server, add, "undo")
        assert again.status_code == 409
        assert again.json()["error"]["code"] == "already_undone"

        redone = await _post(server, add, "redo")
        assert redone.status_code == 200 and redone.json()["undo"]["state"] == "available"
        assert stored_notes(db) == [(1, "buy milk")]
        assert (await _post(server, add, "redo")).json()["error"]["code"] == "not_undone"
        assert (await _post(server, add, "undo")).status_code == 200

        # The next turn: the model is told what was undone.
        await server.say(conversation_id, "what notes do I have?")
        await server.idle()
        prompt = model.received[2][0]
        assert isinstance(prompt, SystemMessage)
        assert "## Undone by the person" in prompt.text
        assert f"- “Add a note” (tool call {add}): note #1: “buy milk”" in prompt.text
        assert "## Undone by the person" not in model.received[0][0].text

        # A read call has nothing to undo.
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        [listing] = [
            c["id"]
            for m in detail["messages"]
            for c in m["tool_calls"]
            if c["name"] == "notes.list"
        ]
        refused = await _post(server, listing, "undo")
        assert refused.status_code == 409
        assert refused.json()["error"] == {
            "code": "not_undoable",
            "message": "“List notes” only reads; there is nothing to undo.",
        }
        assert (await _post(server, "call_nope", "undo")).status_code == 404


async def test_undo_of_delete_and_the_409_when_a_later_call_touched_the_same_note(
    make_settings: SettingsMaker,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message("Adding.", ("notes_add", {"text": "buy milk"})),
            "Added.",
            scripted_message("Deleting.", ("notes_delete", {"id": 1})),
            "Deleted.",
        ]
    )
    async with live_server(make_settings(), model=model) as server:
        db: Database = server.services.db
        conversation_id = await server.new_conversation()
        add, seen = await _approved(server, conversation_id, "note: buy milk", 0)
        delete, _ = await _approved(server, conversation_id, "delete it", seen)
        assert stored_notes(db) == []

        refused = await _post(server, add, "undo")
        assert refused.status_code == 409
        error = refused.json()["error"]
        assert error["code"] == "undo_conflict"
        assert error["message"] == (
            "Cannot undo: note #1: “buy milk” was changed later by “Delete a note”. "
            "Undo that call first."
        )
        assert error["details"]["conflicts"] == [
            {
                "key": "notes/1",
                "label": "note #1: “buy milk”",
                "tool_call_id": delete,
                "title": "Delete a note",
            }
        ]
        assert stored_notes(db) == []

        assert (await _post(server, delete, "undo")).status_code == 200
        assert stored_notes(db) == [(1, "buy milk")]
        # Redo of the add is refused while it is not undone; undo of the add now works.
        assert (await _post(server, add, "undo")).status_code == 200
        assert stored_notes(db) == []
        # Redoing the delete would overwrite the add's undo: refused, naming the add.
        late = await _post(server, delete, "redo")
        assert late.status_code == 409 and late.json()["error"]["code"] == "undo_conflict"
        assert (await _post(server, add, "redo")).status_code == 200
        assert (await _post(server, delete, "redo")).status_code == 200
        assert stored_notes(db) == []


async def test_a_waiting_or_rejected_call_is_not_undoable_and_the_409_says_it_did_not_run(
    make_settings: SettingsMaker,
) -> None:
    model = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "buy milk"})), "Not added."]
    )
    async with live_server(make_settings(), model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "note: buy milk")
        log = await collect(server.client, conversation_id, until=terminals(1))
        [call] = [e["tool_call"]["id"] for e in log.of("tool_call.interrupted")]

        waiting = await _post(server, call, "undo")
        assert waiting.status_code == 409
        assert waiting.json()["error"] == {
            "code": "not_undoable",
            "message": "“Add a note” has not run yet; there is nothing to undo.",
        }
        assert (await server.decide(call, type="reject")).status_code == 200
        await server.idle()
        rejected = await _post(server, call, "undo")
        assert rejected.json()["error"]["message"] == (
            "“Add a note” did not run; there is nothing to undo."
        )


async def test_another_persons_call_cannot_be_undone(make_settings: SettingsMaker) -> None:
    settings = make_settings()
    db = Database(settings.database_url)
    try:
        _ann, ann_token = create_user(db, "ann")
        _bob, bob_token = create_user(db, "bob")
    finally:
        db.dispose()
    model = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "ann's"})), "Added."]
    )
    ann = {"Authorization": f"Bearer {ann_token}"}
    async with live_server(settings, model=model, headers=ann) as server:
        conversation_id = await server.new_conversation()
        add, _ = await _approved(server, conversation_id, "note", 0)
        bob = {"Authorization": f"Bearer {bob_token}"}
        other = await _post(server, add, "undo", headers=bob)
        assert other.status_code == 404
        assert stored_notes(server.services.db) == [(1, "ann's")]


async def test_two_undos_or_redos_of_one_call_at_once_one_goes_on_the_other_is_told_so(
    make_settings: SettingsMaker, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Of two undos of one call, exactly one undoes; the other gets ``already_undone`` (it got
    200 too on SQLite, or an ``undo_conflict`` naming the very call, "changed later by “Add a
    note”"). Deterministic: a competing undo (then redo) commits right after the request
    read the call; then the same at once, several times over."""
    model = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "buy milk"})), "Added."]
    )
    async with live_server(make_settings(), model=model) as server:
        conversation_id = await server.new_conversation()
        add, _ = await _approved(server, conversation_id, "note: buy milk", 0)
        original = undo_module._owned_call
        competing: list[str] = []

        def read_then_lose_the_race(session: Any, user_id: str, tool_call_id: str) -> Any:
            call = original(session, user_id, tool_call_id)
            if len(competing) < 2 and not getattr(_racing, "on", False):
                _racing.on = True
                try:
                    step = undo_module.undo_call if not competing else undo_module.redo_call
                    step(server.services.db, server.services.registry, user_id, tool_call_id)
                finally:
                    _racing.on = False
                competing.append(step.__name__)
            return call

        monkeypatch.setattr(undo_module, "_owned_call", read_then_lose_the_race)
        lost_undo = await _post(server, add, "undo")
        lost_redo = await _post(server, add, "redo")
        monkeypatch.undo()

        assert competing == ["undo_call", "redo_call"]
        assert lost_undo.status_code == 409, lost_undo.text
        assert lost_undo.json()["error"]["code"] == "already_undone"
        assert lost_redo.status_code == 409, lost_redo.text
        assert lost_redo.json()["error"]["code"] == "not_undone"
        assert stored_notes(server.services.db) == [(1, "buy milk")]

        for action, state, lost in (
            ("undo", "undone", "already_undone"),
            ("redo", "available", "not_undone"),
        ):
            answers = await asyncio.gather(*(_post(server, add, action) for _ in range(6)))
            codes = sorted(
                r.json()["error"]["code"] if r.status_code == 409 else str(r.status_code)
                for r in answers
            )
            assert codes == ["200"] + [lost] * 5, [r.text for r in answers]
            detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
            [shown] = [c for m in detail["messages"] for c in m["tool_calls"] if c["id"] == add]
            assert shown["undo"]["state"] == state
        assert stored_notes(server.services.db) == [(1, "buy milk")]
