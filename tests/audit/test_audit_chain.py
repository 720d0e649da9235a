"""Every decision and automatic outcome is an audit record; the SHA-256 chain finds edits."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import delete, update
from sqlmodel import col, select
from typer.testing import CliRunner

from interlock import cli
from interlock.audit import GENESIS_HASH, verify_chain
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import AuditRecord, Database
from support.live import live_server
from support.sse import collect, terminals

SettingsMaker = Callable[..., Settings]


def _records(database: Database) -> list[AuditRecord]:
    with database.session() as session:
        return list(session.exec(select(AuditRecord).order_by(col(AuditRecord.seq))).all())


async def test_decisions_and_automatic_outcomes_are_chained_records(
    make_settings: SettingsMaker,
) -> None:
    model = ScriptedChatModel(
        responses=[
            scripted_message(
                "Adding.",
                ("notes_add", {"text": "buy milk"}),
                ("notes_add", {"text": "buy bread"}),
                ("notes_add", {"text": "call mum"}),
            ),
            scripted_message("Listing.", ("notes_list", {})),
            "Done.",
        ]
    )
    async with live_server(make_settings(), model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add my notes")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused"
        first, second, third = (e["tool_call"]["id"] for e in log.of("tool_call.interrupted"))
        assert (await server.decide(first, type="approve")).status_code == 200
        edited = await server.client.post(
            f"/api/tool-calls/{second}/decision",
            json={"type": "edit", "args": {"text": "buy rye bread"}},
            headers={"X-Interlock-Client": "web"},
        )
        assert edited.status_code == 200
        rejected = await server.decide(third, type="reject", message="not now")
        assert rejected.status_code == 200
        await server.idle()

        records = _records(server.services.db)
        assert [(r.tool, r.outcome, r.channel) for r in records] == [
            ("notes.add", "approved", "api"),
            ("notes.add", "edited", "web"),
            ("notes.add", "rejected", "api"),
            ("notes.list", "allowed", "system"),
        ]
        user_id = (await server.client.get("/api/me")).json()["id"]
        assert [r.decider for r in records] == [user_id, user_id, user_id, "policy:allow"]
        assert [r.seq for r in records] == [1, 2, 3, 4]
        assert records[0].prev_hash == GENESIS_HASH
        assert all(b.prev_hash == a.hash for a, b in itertools.pairwise(records))
        assert records[1].proposed_args == {"text": "buy bread"}
        assert records[1].executed_args == {"text": "buy rye bread"}
        assert records[2].reason == "not now" and records[2].executed_args is None
        assert all(
            r.employee == "assistant" and r.conversation_id == conversation_id for r in records
        )
        assert all(r.owner_id == user_id for r in records)

        with server.services.db.session() as session:
            report = verify_chain(session)
        assert report.ok and report.records == 4


async def test_verify_detects_an_edited_row_and_the_cli_says_which(
    make_settings: SettingsMaker,
) -> None:
    settings = make_settings()
    model = ScriptedChatModel(
        responses=[scripted_message("Adding.", ("notes_add", {"text": "a"})), "ok", "ok"]
    )
    async with live_server(settings, model=model) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "add a")
        log = await collect(server.client, conversation_id, until=terminals(1))
        [call] = [e["tool_call"]["id"] for e in log.of("tool_call.interrupted")]
        assert (await server.decide(call, type="approve")).status_code == 200
        await server.idle()
        await server.say(conversation_id, "thanks")
        await server.idle()

    runner = CliRunner()
    ok = runner.invoke(cli.app, ["audit", "verify", "--database-url", settings.database_url])
    assert ok.exit_code == 0, ok.output
    assert "1 records, chain intact" in ok.output

    database = Database(settings.database_url)
    try:
        with database.session() as session:
            session.exec(  # type: ignore[call-overload]
                update(AuditRecord).where(col(AuditRecord.seq) == 1).values(decider="someone")
            )
            session.commit()
        with database.session() as session:
            report = verify_chain(session)
    finally:
        database.dispose()
    assert not report.ok and report.first_bad_seq == 1
    assert report.problem == "its contents were changed after it was written"
    bad = runner.invoke(cli.app, ["audit", "verify", "--database-url", settings.database_url])
    assert bad.exit_code == 1
    assert "audit record 1 does not verify" in bad.output


async def test_the_newest_records_deleted_show_against_a_head_kept_outside(
    make_settings: SettingsMaker, tmp_path: Path
) -> None:
    """The tryout: deleting the last audit row left "chain intact"; a saved head shows it."""
    settings = make_settings()
    model = ScriptedChatModel(
        responses=[
            scripted_message("Adding.", ("notes_add", {"text": "a"})),
            "ok",
            scripted_message("Adding.", ("notes_add", {"text": "b"})),
            "ok",
        ]
    )
    async with live_server(settings, model=model) as server:
        conversation_id = await server.new_conversation()
        for turn, text in enumerate(("add a", "add b")):
            await server.say(conversation_id, text)
            log = await collect(server.client, conversation_id, until=terminals(2 * turn + 1))
            call = log.of("tool_call.interrupted")[-1]["tool_call"]["id"]
            assert (await server.decide(call, type="approve")).status_code == 200
            await server.idle()

    runner = CliRunner()
    url = ["--database-url", settings.database_url]
    head_file = tmp_path / "audit-head"
    ok = runner.invoke(cli.app, ["audit", "verify", *url, "--head-file", str(head_file)])
    assert ok.exit_code == 0, ok.output
    head = head_file.read_text().strip()
    assert f"Head: {head}" in ok.output and head.startswith("2:")
    again = runner.invoke(cli.app, ["audit", "verify", *url, "--expect-head", head])
    assert again.exit_code == 0, again.output

    database = Database(settings.database_url)
    try:
        with database.session() as session:
            session.exec(delete(AuditRecord).where(col(AuditRecord.seq) == 2))  # type: ignore[call-overload]
            session.commit()
    finally:
        database.dispose()

    # The chain alone is still intact (what a hash chain cannot show)...
    alone = runner.invoke(cli.app, ["audit", "verify", *url])
    assert alone.exit_code == 0 and "1 records, chain intact" in alone.output
    # ...the head kept outside is not.
    for option in (["--head-file", str(head_file)], ["--expect-head", head]):
        cut = runner.invoke(cli.app, ["audit", "verify", *url, *option])
        assert cut.exit_code == 1, cut.output
        assert "the log ends at record 1, but a head saved earlier had record 2" in cut.output
    assert head_file.read_text().strip() == head  # a failed verify keeps the saved head
    bad = runner.invoke(cli.app, ["audit", "verify", *url, "--expect-head", "2:nothex"])
    assert bad.exit_code == 1 and "is not a head" in bad.output
