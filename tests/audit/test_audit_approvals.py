"""A call needing two approvals: every approval is on the audit log, each approver sees the
records of the call they decided, and the ``user`` filter takes a user's id or name.

Before: only the last approval (Bob's) was recorded; Ann, who approved first, was nowhere in
the log and saw nothing (total 0), and the Audit page's Person filter listed only the owner.
``?user=`` took ids only: ``?user=root`` and ``?user=zzz`` both answered 200 with total 0.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

from interlock.audit import verify_chain
from interlock.settings import Settings
from support.live import live_server
from support.sse import collect, terminals

from .conftest import get_json, three_people

HAL = {
    "slug": "hal",
    "name": "Hal",
    "pinned_skills": ["notes"],
    "approvers": ["ann", "bob"],
    "tool_approvals": {"notes.add": {"approvals_required": 2, "require_approver": True}},
}


async def test_each_approval_is_recorded_and_seen_by_its_approver(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings()
    people = three_people(settings)
    ann, bob, root = (people.headers[name] for name in ("ann", "bob", "root"))
    async with live_server(settings, headers=root) as server:
        created = await server.client.post("/api/employees", json=HAL)
        assert created.status_code == 201, created.text
        conversation = await server.client.post("/api/conversations", json={"employee": "hal"})
        conversation_id = conversation.json()["id"]
        await server.say(conversation_id, "add a note buy milk")
        log = await collect(server.client, conversation_id, until=terminals(1))
        [call] = [e["tool_call"] for e in log.of("tool_call.interrupted")]
        decision = f"/api/tool-calls/{call['id']}/decision"
        web = {**ann, "X-Interlock-Client": "web"}
        first = await server.client.post(decision, json={"type": "approve"}, headers=web)
        assert first.status_code == 200 and first.json()["decision"] is None, first.text
        second = await server.client.post(decision, json={"type": "approve"}, headers=bob)
        assert second.status_code == 200 and second.json()["decision"], second.text
        await collect(server.client, conversation_id, until=terminals(2))
        await server.idle()

        hal = await get_json(server, "/api/audit", root, employee="hal")
        assert hal["total"] == 2
        rows = [
            (r["outcome"], r["decided_by"], r["decider_is_person"], r["channel"])
            for r in hal["records"]
        ]
        assert rows == [("approved", "bob", True, "api"), ("approval", "ann", True, "web")]
        later, earlier = hal["records"]
        assert earlier["created_at"] <= later["created_at"]
        assert earlier["executed_args"] is None and later["executed_args"] == call["proposed_args"]
        assert {r["owner_name"] for r in hal["records"]} == {"root"}

        # Each approver sees both records of the call they decided (members see no others).
        for who in (ann, bob):
            seen = await get_json(server, "/api/audit", who)
            assert [r["seq"] for r in seen["records"]] == [later["seq"], earlier["seq"]]
        exported = await server.client.get("/api/audit/export", headers=ann)
        assert [row["decided_by"] for row in csv.DictReader(io.StringIO(exported.text))] == [
            "ann",
            "bob",
        ]

        # The user filter: an id or a name (in any case, as user names are unique regardless
        # of case and approvers match so), the records the person took part in.
        for value in (people.ann.id, "ann", "bob", "root", "ANN", "Bob"):
            narrowed = await get_json(server, "/api/audit", root, user=value)
            assert narrowed["total"] == 2, value
        unknown = await server.client.get("/api/audit", params={"user": "zzz"}, headers=root)
        assert unknown.status_code == 422, unknown.text
        assert unknown.json()["error"] == {
            "code": "unknown_user",
            "message": "No user has the id or name “zzz”. Choose a person from the list, or "
            "give a user's id or name.",
            "details": {"user": "zzz"},
        }
        unknown = await server.client.get("/api/audit/export", params={"user": "zzz"})
        assert unknown.status_code == 422 and unknown.json()["error"]["code"] == "unknown_user"

        # The metrics count the call once as approved; the first approval is not a decision.
        metrics = await get_json(server, "/api/metrics/tools", root)
        [notes] = [m for m in metrics["tools"] if m["employee"] == "hal"]
        assert (notes["approved"], notes["calls"]) == (1, 1)

        with server.services.db.session() as session:
            report = verify_chain(session)
        assert report.ok and report.records == 2, report
