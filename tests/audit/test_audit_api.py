"""GET /api/audit (filters, pages, CSV, who sees what) and GET /api/metrics/tools."""

from __future__ import annotations

import csv
import io
import math
import statistics
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlmodel import col, select

from interlock.audit import Outcome, record_outcome
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import AuditRecord, ToolCall
from support.live import LiveServer, live_server
from support.sse import collect, terminals

from .conftest import get_json, three_people

SettingsMaker = Callable[..., Settings]


async def _ann_turn(server: LiveServer, ann: dict[str, str]) -> str:
    """Ann's scripted turn: approve, edit, reject three notes.add; then notes.list runs (ALLOW)."""
    created = await server.client.post("/api/conversations", json={}, headers=ann)
    conversation_id = str(created.json()["id"])
    sent = await server.client.post(
        f"/api/conversations/{conversation_id}/messages", json={"content": "notes"}, headers=ann
    )
    assert sent.status_code == 202
    log = await collect(server.client, conversation_id, until=terminals(1), headers=ann)
    first, second, third = (e["tool_call"]["id"] for e in log.of("tool_call.interrupted"))
    for call_id, body in (
        (first, {"type": "approve"}),
        (second, {"type": "edit", "args": {"text": "b2"}}),
        (third, {"type": "reject", "message": "no"}),
    ):
        decided = await server.client.post(
            f"/api/tool-calls/{call_id}/decision", json=body, headers=ann
        )
        assert decided.status_code == 200, decided.text
    await server.idle()
    return conversation_id


async def _bob_turn(server: LiveServer, bob: dict[str, str]) -> None:
    created = await server.client.post("/api/conversations", json={}, headers=bob)
    conversation_id = str(created.json()["id"])
    await server.client.post(
        f"/api/conversations/{conversation_id}/messages", json={"content": "x"}, headers=bob
    )
    log = await collect(server.client, conversation_id, until=terminals(1), headers=bob)
    [call] = [e["tool_call"]["id"] for e in log.of("tool_call.interrupted")]
    await server.client.post(
        f"/api/tool-calls/{call}/decision", json={"type": "approve"}, headers=bob
    )
    await server.idle()


def _script() -> ScriptedChatModel:
    return ScriptedChatModel(
        responses=[
            scripted_message(
                "Adding.",
                ("notes_add", {"text": "a"}),
                ("notes_add", {"text": "b"}),
                ("notes_add", {"text": "c"}),
            ),
            scripted_message("Listing.", ("notes_list", {})),
            "Done.",
            scripted_message("Adding.", ("notes_add", {"text": "bob's"})),
            "Done.",
        ]
    )


async def test_audit_list_filters_pages_csv_and_rights(make_settings: SettingsMaker) -> None:
    settings = make_settings()
    people = three_people(settings)
    ann_user, bob_user = people.ann, people.bob
    ann, bob, root = (people.headers[name] for name in ("ann", "bob", "root"))
    async with live_server(settings, model=_script()) as server:
        await _ann_turn(server, ann)
        await _bob_turn(server, bob)

        mine = await get_json(server, "/api/audit", ann)
        assert mine["total"] == 4 and mine["next_before"] is None
        assert [(r["tool"], r["outcome"]) for r in mine["records"]] == [
            ("notes.list", "allowed"),
            ("notes.add", "rejected"),
            ("notes.add", "edited"),
            ("notes.add", "approved"),
        ]
        newest = mine["records"][0]
        assert newest["decided_by"] == "Allowed by the tool's permission"
        assert newest["tool_title"] == "List notes" and newest["owner_name"] == "ann"
        assert mine["records"][1]["decided_by"] == "ann" and mine["records"][1]["reason"] == "no"
        assert mine["records"][2]["executed_args"] == {"text": "b2"}

        everything = await get_json(server, "/api/audit", root)
        assert everything["total"] == 5
        assert (await get_json(server, "/api/audit", bob))["total"] == 1
        # A member's user filter only narrows what they may see.
        assert (await get_json(server, "/api/audit", ann, user=bob_user.id))["total"] == 0
        by_bob = await get_json(server, "/api/audit", root, user=bob_user.id)
        assert [r["owner_name"] for r in by_bob["records"]] == ["bob"]

        assert (await get_json(server, "/api/audit", root, tool="notes.list"))["total"] == 1
        assert (await get_json(server, "/api/audit", root, outcome="rejected"))["total"] == 1
        assert (await get_json(server, "/api/audit", root, employee="assistant"))["total"] == 5
        assert (await get_json(server, "/api/audit", root, employee="scout"))["total"] == 0
        future = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
        past = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
        assert (await get_json(server, "/api/audit", root, since=future))["total"] == 0
        assert (await get_json(server, "/api/audit", root, since=past, until=future))["total"] == 5
        bad = await server.client.get(
            "/api/audit", params={"since": future, "until": past}, headers=root
        )
        assert bad.status_code == 422
        assert bad.json()["error"]["message"] == (
            "The period must start (From, since) before it ends (Until, until)."
        )
        wrong = await server.client.get("/api/audit", params={"outcome": "maybe"}, headers=root)
        assert wrong.status_code == 422

        first = await get_json(server, "/api/audit", root, limit=2)
        assert len(first["records"]) == 2 and first["next_before"] == first["records"][-1]["seq"]
        second = await get_json(server, "/api/audit", root, limit=2, before=first["next_before"])
        third = await get_json(server, "/api/audit", root, limit=2, before=second["next_before"])
        seqs = [r["seq"] for page in (first, second, third) for r in page["records"]]
        assert seqs == [5, 4, 3, 2, 1] and third["next_before"] is None
        for huge in (2**31, 10**21):  # past any record: the first page, not a server error
            page = await get_json(server, "/api/audit", root, limit=2, before=huge)
            assert [r["seq"] for r in page["records"]] == [5, 4]

        exported = await server.client.get(
            "/api/audit/export", params={"tool": "notes.add"}, headers=ann
        )
        assert exported.status_code == 200
        assert exported.headers["content-type"].startswith("text/csv")
        assert "attachment" in exported.headers["content-disposition"]
        rows = list(csv.DictReader(io.StringIO(exported.text)))
        assert [(r["outcome"], r["decided_by"]) for r in rows] == [
            ("approved", "ann"),
            ("edited", "ann"),
            ("rejected", "ann"),
        ]
        assert rows[1]["executed_args"] == '{"text": "b2"}'
        assert ann_user.id not in exported.text.split("\n")[0]


async def test_tool_metrics_match_a_scripted_sequence(make_settings: SettingsMaker) -> None:
    async with live_server(make_settings(), model=_script()) as server:
        await _ann_turn(server, {})
        await _bob_turn(server, {})
        # A remembered approval's automatic run, as the grants policy records it.
        with server.services.db.session() as session:
            call = session.exec(select(ToolCall).where(ToolCall.name == "notes.list")).one()
            record_outcome(
                session,
                call=call,
                decider="policy:grant_1",
                channel="system",
                outcome=Outcome.allowed,
                reason=None,
                proposed_args={},
                executed_args={},
            )
            session.commit()
            waits = [
                r.waited_ms
                for r in session.exec(
                    select(AuditRecord)
                    .where(AuditRecord.tool == "notes.add")
                    .order_by(col(AuditRecord.seq))
                ).all()
            ]

        report = await get_json(server, "/api/metrics/tools", {})
        by_tool = {row["tool"]: row for row in report["tools"]}
        add, listing = by_tool["notes.add"], by_tool["notes.list"]
        assert [row["tool"] for row in report["tools"]] == ["notes.add", "notes.list"]
        assert {k: add[k] for k in ("calls", "approved", "edited", "rejected", "expired")} == {
            "calls": 4,
            "approved": 2,
            "edited": 1,
            "rejected": 1,
            "expired": 0,
        }
        assert (add["auto_allowed"], add["auto_allowed_by_grant"]) == (0, 0)
        assert (listing["calls"], listing["auto_allowed"], listing["auto_allowed_by_grant"]) == (
            1,
            1,
            1,
        )
        assert listing["median_decision_ms"] is None and listing["p95_decision_ms"] is None
        ordered = sorted(waits)
        assert add["median_decision_ms"] == statistics.median(ordered)
        assert add["p95_decision_ms"] == ordered[math.ceil(0.95 * len(ordered)) - 1]
        assert add["employee"] == "assistant" and add["title"] == "Add a note"

        later = datetime.now(UTC) + timedelta(hours=1)
        empty = await get_json(
            server,
            "/api/metrics/tools",
            {},
            since=later.isoformat(),
            until=(later + timedelta(hours=1)).isoformat(),
        )
        assert empty["tools"] == []
        too_long = await server.client.get(
            "/api/metrics/tools", params={"since": "2020-01-01T00:00:00Z"}
        )
        assert too_long.status_code == 422
