"""A reply being written, seen by a page opened or reloaded mid-reply, and cut by a restart.

Tryout faults kept as tests:

* a conversation opened while its reply streamed showed the draft from the middle: the detail
  said only where the stream ended (``last_event_seq``). It now also says where the reply
  being written starts (``draft_after_seq``): a stream opened after it brings that reply whole,
  and nothing of the detail comes twice.
* a server stopped mid-reply (as on SIGTERM) left a cut reply that looked finished, and the run
  going on after the restart answered "I have nothing to add yet": the cut text was taken for
  the answer. The detail now lists such runs (``restarted_runs``), and the new run answers
  the person's message.
* a server killed outright mid-reply (SIGKILL, a crash) stored nothing of the reply it was
  writing: after the restart the streamed text was gone from the page and nothing said a reply
  was cut. The repair now keeps it as the cut run's message, marked like the one above.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from interlock.models.offline.texts import LONG_TEXT
from interlock.settings import Settings
from support.live import live_server
from support.processes import start_server
from support.sse import EventLog, collect, terminals

LONG = "write a long answer"


def _text(log: EventLog) -> str:
    return "".join(str(d["delta"]) for d in log.of("message.delta"))


def _deltas_at_least(n: int) -> Callable[[EventLog], bool]:
    return lambda log: len(log.of("message.delta")) >= n


async def test_a_page_opened_mid_reply_gets_the_whole_draft_once(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(offline_token_delay_s=0.02)
    async with live_server(settings) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, LONG)
        # Some of the reply is written: a page opens now (a reload, a second tab).
        await collect(server.client, conversation_id, until=_deltas_at_least(5), last_event_id="0")
        detail: dict[str, Any] = (
            await server.client.get(f"/api/conversations/{conversation_id}")
        ).json()
        assert detail["status"] == "running"
        start, end = detail["draft_after_seq"], detail["last_event_seq"]
        assert 0 < start < end

        # The stream after draft_after_seq: the reply from its first word, to its end.
        log = await collect(
            server.client, conversation_id, until=terminals(1), last_event_id=str(start)
        )
        await server.idle()
        assert _text(log) == LONG_TEXT
        # Between the two seqs only the draft's deltas: nothing the detail holds comes again.
        assert {f.event for f in log.frames if int(f.id or 0) <= end} == {"message.delta"}
        [stored] = log.of("message.completed")
        assert stored["message"]["content"] == LONG_TEXT
        assert stored["message"]["id"] not in {m["id"] for m in detail["messages"]}

        # After last_event_seq (what the page did) the reply started mid-way.
        late = await collect(
            server.client, conversation_id, until=terminals(1), last_event_id=str(end)
        )
        assert not LONG_TEXT.startswith(_text(late))

        # Nothing streams: the two seqs are the same.
        idle = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        assert idle["draft_after_seq"] == idle["last_event_seq"]


async def test_a_reply_cut_by_a_restart_is_marked_and_the_new_run_answers_the_message(
    make_settings: Callable[..., Settings],
) -> None:
    settings = make_settings(offline_token_delay_s=0.02)
    async with live_server(settings) as server:
        conversation_id = await server.new_conversation()
        cut_run = (await server.say(conversation_id, LONG))["run_id"]
        await collect(server.client, conversation_id, until=_deltas_at_least(5), last_event_id="0")
        seen = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        server.stop()  # as on SIGTERM, mid-reply
        await server.stopped()

    async with live_server(settings) as server:
        log = await collect(
            server.client,
            conversation_id,
            until=terminals(2),
            last_event_id=str(seen["last_event_seq"]),
        )
        await server.idle()
        [failed] = log.of("run.failed")
        assert failed["run_id"] == cut_run
        assert failed["error"] == {
            "code": "server_restarted",
            "message": "The server stopped while the employee was working on this.",
        }
        [resumed] = log.of("run.started")
        assert resumed["trigger"] == "resume"
        assert log.of("run.completed")[0]["run_id"] == resumed["run_id"]

        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()
        assert detail["restarted_runs"] == [cut_run]
        assert detail["stopped_runs"] == []
        replies = [m for m in detail["messages"] if m["role"] == "assistant"]
        # The cut reply stays (marked by restarted_runs), then the whole answer to the person.
        assert [m["run_id"] for m in replies] == [cut_run, resumed["run_id"]]
        assert LONG_TEXT.startswith(replies[0]["content"])
        assert replies[0]["content"] != LONG_TEXT
        assert replies[1]["content"] == LONG_TEXT


async def test_a_reply_cut_by_a_crash_is_kept_marked_and_the_new_run_answers_the_message(
    db_url: str, tmp_path: Path
) -> None:
    crashed, _port = start_server(db_url, tmp_path, offline_token_delay_s="0.02")
    try:
        await crashed.wait_ready()
        conversation_id = (await crashed.client.post("/api/conversations", json={})).json()["id"]
        messages = f"/api/conversations/{conversation_id}/messages"
        cut_run = (await crashed.client.post(messages, json={"content": LONG})).json()["run_id"]
        await collect(crashed.client, conversation_id, until=_deltas_at_least(5), last_event_id="0")
        seen = (await crashed.client.get(f"/api/conversations/{conversation_id}")).json()
        crashed.kill()  # mid-reply, nothing of its shutdown runs
    finally:
        await crashed.stop()

    restarted, _port = start_server(db_url, tmp_path, offline_token_delay_s="0.02")
    try:
        await restarted.wait_ready()
        # The page that was open reconnects from what it had.
        log = await collect(
            restarted.client,
            conversation_id,
            until=terminals(2),
            last_event_id=str(seen["last_event_seq"]),
        )
        detail = (await restarted.client.get(f"/api/conversations/{conversation_id}")).json()
        whole = await collect(restarted.client, conversation_id, until=terminals(2))
    finally:
        await restarted.stop()

    streamed = "".join(str(d["delta"]) for d in whole.of("message.delta") if d["run_id"] == cut_run)
    assert streamed and LONG_TEXT.startswith(streamed) and streamed != LONG_TEXT
    kept, answer = log.of("message.completed")
    assert kept["message"]["run_id"] == cut_run and kept["message"]["content"] == streamed
    assert log.types.index("message.completed") < log.types.index("run.failed")
    [failed] = log.of("run.failed")
    assert (failed["run_id"], failed["error"]["code"]) == (cut_run, "server_restarted")
    [resumed] = log.of("run.started")
    assert answer["message"]["run_id"] == resumed["run_id"]

    # A page opened now: the cut reply, marked by restarted_runs, then the whole answer.
    assert detail["restarted_runs"] == [cut_run]
    replies = [m for m in detail["messages"] if m["role"] == "assistant"]
    assert [(m["run_id"], m["content"]) for m in replies] == [
        (cut_run, streamed),
        (resumed["run_id"], LONG_TEXT),
    ]
