"""Access tokens in the audit log: creating and revoking one is a chained ``token`` record (who,
from where, which token), seen by the token's owner and admins, outside the tool metrics."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from typing import Any

from sqlmodel import col, select
from typer.testing import CliRunner

from interlock import cli
from interlock.audit import record_payload, verify_chain
from interlock.settings import Settings
from interlock.storage import AuditRecord, Database
from support.live import live_server

from .conftest import bearer, get_json, three_people

SettingsMaker = Callable[..., Settings]


async def test_creating_and_revoking_a_token_is_audited(make_settings: SettingsMaker) -> None:
    settings = make_settings()
    people = three_people(settings)
    ann_user, ann_token = people.ann, people.ann_token
    ann, bob, root = (people.headers[name] for name in ("ann", "bob", "root"))
    async with live_server(settings) as server:
        created = await server.client.post(
            "/api/tokens", json={"name": "Claude Desktop"}, headers=bearer(ann_token, "web")
        )
        assert created.status_code == 201, created.text
        token_id = created.json()["id"]
        for _ in range(2):  # revoking twice changes nothing the second time
            revoked = await server.client.post(f"/api/tokens/{token_id}/revoke", headers=ann)
            assert revoked.status_code == 200, revoked.text

        page = await get_json(server, "/api/audit", ann)
        assert page["total"] == 2
        shown = [
            {k: r[k] for k in ("kind", "outcome", "tool_title", "reason", "channel", "decided_by")}
            for r in page["records"]
        ]
        assert shown == [
            {
                "kind": "token",
                "outcome": "revoked",
                "tool_title": "MCP token",
                "reason": "Claude Desktop",
                "channel": "api",
                "decided_by": "ann",
            },
            {
                "kind": "token",
                "outcome": "created",
                "tool_title": "MCP token",
                "reason": "Claude Desktop",
                "channel": "web",
                "decided_by": "ann",
            },
        ]
        for record in page["records"]:
            assert record["tool_call_id"] == token_id
            assert (record["owner_id"], record["decider"]) == (ann_user.id, ann_user.id)
            assert (record["conversation_id"], record["employee"], record["tool"]) == ("", "", "")
            assert "ilk_" not in str(record)  # never the token itself
        # Admins see them, another member does not; filters work as for calls.
        assert (await get_json(server, "/api/audit", root))["total"] == 2
        assert (await get_json(server, "/api/audit", bob))["total"] == 0
        only = await get_json(server, "/api/audit?outcome=created", root)
        assert [r["outcome"] for r in only["records"]] == ["created"]
        assert (await get_json(server, "/api/audit?tool=notes.add", root))["total"] == 0
        # The CSV says what each row is.
        response = await server.client.get("/api/audit/export", headers=root)
        rows = list(csv.DictReader(io.StringIO(response.text)))
        assert [(r["kind"], r["outcome"], r["reason"]) for r in rows] == [
            ("token", "created", "Claude Desktop"),
            ("token", "revoked", "Claude Desktop"),
        ]
        # Not tool calls: the tool metrics have nothing.
        assert (await get_json(server, "/api/metrics/tools", root))["tools"] == []

    db = Database(settings.database_url)
    try:
        with db.session() as session:
            assert verify_chain(session).ok
            records = session.exec(select(AuditRecord).order_by(col(AuditRecord.seq))).all()
            assert [r.kind for r in records] == ["token", "token"]
            assert all(record_payload(r)["kind"] == "token" for r in records)
    finally:
        db.dispose()


async def test_a_tool_call_record_s_hash_does_not_cover_kind(make_settings: SettingsMaker) -> None:
    # Records written before ``kind`` existed keep verifying: it is left out of their payload.
    record = AuditRecord(
        seq=1,
        tool_call_id="call_1",
        conversation_id="c",
        employee="assistant",
        tool="notes.add",
        owner_id="u",
        decider="u",
        channel="web",
        outcome="approved",
        prev_hash="",
        hash="",
    )
    assert record.kind == "tool_call"
    assert "kind" not in record_payload(record)


def test_the_command_line_audits_what_the_operator_does(
    make_settings: SettingsMaker, monkeypatch: Any
) -> None:
    settings = make_settings()
    monkeypatch.setenv("INTERLOCK_DATABASE_URL", settings.database_url)
    runner = CliRunner()
    assert runner.invoke(cli.app, ["users", "create", "ann"]).exit_code == 0
    created = runner.invoke(cli.app, ["tokens", "create", "ann", "--name", "Cursor"])
    assert created.exit_code == 0, created.output
    db = Database(settings.database_url)
    try:
        with db.session() as session:
            (record,) = session.exec(select(AuditRecord)).all()
            token_id = record.tool_call_id
        assert runner.invoke(cli.app, ["tokens", "revoke", token_id]).exit_code == 0
        with db.session() as session:
            records = session.exec(select(AuditRecord).order_by(col(AuditRecord.seq))).all()
            assert [(r.outcome, r.decider, r.channel, r.reason) for r in records] == [
                ("created", "cli", "cli", "Cursor"),
                ("revoked", "cli", "cli", "Cursor"),
            ]
            assert verify_chain(session).ok
    finally:
        db.dispose()
