"""C30 — a decision applies to its own call only (oversight, protocols).

Two conversations of one person (A, B) each wait on a ``notes.delete`` call; a third (C) waits
on two calls in one message. Each decision is sent with the other call's id swapped into the
body (the API has no body id: refused, nothing recorded), old decision requests are replayed
after the run resumed (409 with the recorded decision), and grants made for one tool and
conversation are sent while a different tool's call waits. Every decision must land on the
call named in the URL and nowhere else; a grant runs only calls it covers; every call ends
with exactly one outcome (one decision or one grant, one tool message, one audit record).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlmodel import col, func, select

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import AuditRecord, Decision, Message, ToolCall
from support.live import LiveServer, live_server
from support.notes import insert_note, stored_notes
from support.sse import EventLog, collect, terminals


async def _decide(
    server: LiveServer, conversation_id: str, call_id: str, body: dict[str, Any]
) -> EventLog | None:
    """Decide; when the run resumes, read it to its end."""
    seen = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
    response = await server.decide(call_id, **body)
    assert response.status_code == 200, response.text
    assert response.json()["id"] == call_id
    assert response.json()["decision"]["type"] == body["type"]
    pending = (await server.client.get(f"/api/conversations/{conversation_id}/pending")).json()
    if [p for p in pending if p["decision"] is None]:
        return None
    log = await collect(
        server.client,
        conversation_id,
        until=terminals(1),
        last_event_id=str(seen["last_event_seq"]),
    )
    await server.idle()
    return log


def _waiting(log: EventLog) -> list[dict[str, Any]]:
    return [e["tool_call"] for e in log.of("tool_call.interrupted")]


def _decisions(server: LiveServer) -> dict[str, list[str]]:
    with server.services.db.session() as session:
        out: dict[str, list[str]] = {}
        for decision in session.exec(select(Decision)).all():
            out.setdefault(decision.tool_call_id, []).append(decision.type)
        return out


def _notes(server: LiveServer) -> list[str]:
    return sorted(text for _, text in stored_notes(server.services.db))


async def test_case_c30_decision_applies_to_its_own_call(
    make_settings: Callable[..., Settings],
) -> None:
    settings: Settings = make_settings()
    model = ScriptedChatModel(
        responses=[
            scripted_message("Deleting #1.", ("notes_delete", {"id": 1})),
            scripted_message("Deleting #2.", ("notes_delete", {"id": 2})),
            scripted_message(
                "Both.", ("notes_delete", {"id": 3}), ("notes_add", {"text": "from C"})
            ),
            "Deleted #1.",
            "Kept #2.",
            "Deleted #3; did not add.",
            scripted_message("Deleting #4.", ("notes_delete", {"id": 4})),
            "Deleted #4.",
            scripted_message("Adding.", ("notes_add", {"text": "from A"})),
            "Added.",
            scripted_message("Adding.", ("notes_add", {"text": "again from C"})),
        ]
    )
    async with live_server(settings, model=model) as server:
        me = (await server.client.get("/api/me")).json()
        for text in ("one", "two", "three", "four"):
            insert_note(server.services.db, me["id"], text)
        a, b, c = [await server.new_conversation() for _ in range(3)]
        (call_a,) = _waiting(await server.turn(a, "delete note 1"))
        (call_b,) = _waiting(await server.turn(b, "delete note 2"))
        call_c_delete, call_c_add = _waiting(await server.turn(c, "delete 3 and add"))
        assert call_c_delete["name"] == "notes.delete" and call_c_add["name"] == "notes.add"
        ids = [call_a["id"], call_b["id"], call_c_delete["id"], call_c_add["id"]]

        # The other call's id swapped into the body: the body has no id field; refused whole.
        for mine, other in zip(ids, ids[1:] + ids[:1], strict=True):
            for key in ("tool_call_id", "id", "call_id"):
                response = await server.client.post(
                    f"/api/tool-calls/{mine}/decision", json={"type": "approve", key: other}
                )
                assert response.status_code == 422, response.text
        assert _decisions(server) == {}

        # Grants for one tool and conversation while a different tool's call waits there.
        for body in (
            {"tool": "notes.add", "scope": "conversation", "conversation_id": a},
            {"tool": "notes.delete", "scope": "conversation", "conversation_id": b},
        ):
            response = await server.client.post("/api/grants", json=body)
            assert response.status_code == 201, response.text
        for conversation_id, expected in (
            (a, [call_a["id"]]),
            (b, [call_b["id"]]),
            (c, [call_c_delete["id"], call_c_add["id"]]),
        ):
            pending = (
                await server.client.get(f"/api/conversations/{conversation_id}/pending")
            ).json()
            assert [p["id"] for p in pending] == expected
            assert all(p["decision"] is None and p["status"] == "interrupted" for p in pending)
        assert _decisions(server) == {}

        log = await _decide(server, a, call_a["id"], {"type": "approve"})
        assert log is not None and log.types[-1] == "run.completed"
        log = await _decide(server, b, call_b["id"], {"type": "reject", "message": "keep it"})
        assert log is not None and log.types[-1] == "run.completed"
        assert await _decide(server, c, call_c_add["id"], {"type": "reject"}) is None
        log = await _decide(server, c, call_c_delete["id"], {"type": "approve"})
        assert log is not None and log.types[-1] == "run.completed"
        assert _notes(server) == ["four", "two"]

        # Replays after the runs resumed: 409 with the recorded decision, nothing changes.
        for call_id, body in (
            (call_a["id"], {"type": "approve"}),
            (call_b["id"], {"type": "reject", "message": "keep it"}),
            (call_c_add["id"], {"type": "reject"}),
            (call_c_delete["id"], {"type": "approve"}),
            (call_b["id"], {"type": "approve"}),
        ):
            response = await server.decide(call_id, **body)
            assert response.status_code == 409, response.text
            error = response.json()["error"]
            assert error["code"] == "not_interrupted"
            assert error["details"]["decision"]["type"] == _decisions(server)[call_id][0]

        # The grants run only the calls they cover.
        log = await server.turn(b, "delete note 4")
        (granted_b,) = [e["tool_call"] for e in log.of("tool_call.completed")]
        assert granted_b["status"] == "succeeded" and granted_b["grant_id"] is not None
        log = await server.turn(a, "add a note")
        (granted_a,) = [e["tool_call"] for e in log.of("tool_call.completed")]
        assert granted_a["name"] == "notes.add" and granted_a["grant_id"] is not None
        assert granted_a["grant_id"] != granted_b["grant_id"]
        log = await server.turn(c, "add again")
        (still_asks,) = _waiting(log)
        assert still_asks["grant_id"] is None
        assert _notes(server) == ["from A", "two"]

        assert _decisions(server) == {
            call_a["id"]: ["approve"],
            call_b["id"]: ["reject"],
            call_c_delete["id"]: ["approve"],
            call_c_add["id"]: ["reject"],
        }
        with server.services.db.session() as session:
            closed = session.exec(select(ToolCall).where(ToolCall.status != "interrupted")).all()
            assert len(closed) == 6
            for call in closed:
                decided = call.id in _decisions(server)
                assert decided != (call.grant_id is not None), call.id  # exactly one outcome
                messages = session.exec(
                    select(func.count()).where(Message.tool_call_id == call.id)
                ).one()
                assert messages == 1, call.id
            audit = [
                (r.tool_call_id, r.outcome, r.decider)
                for r in session.exec(select(AuditRecord).order_by(col(AuditRecord.seq))).all()
            ]
        assert sorted(audit) == sorted(
            [
                (call_a["id"], "approved", me["id"]),
                (call_b["id"], "rejected", me["id"]),
                (call_c_add["id"], "rejected", me["id"]),
                (call_c_delete["id"], "approved", me["id"]),
                (granted_b["id"], "allowed", f"policy:{granted_b['grant_id']}"),
                (granted_a["id"], "allowed", f"policy:{granted_a['grant_id']}"),
            ]
        )
