"""Requests racing on one paused conversation: a real answer each, one outcome per call.

A run pauses on three calls: two notes to add (cards waiting for a decision) and a clock the
browser reads (waiting for its result). Then, all at once, the person approves the first
card, rejects the second, the browser posts the clock's result, the person cancels, and the
person sends a new message. On PostgreSQL these are transactions side by side on the server's
database threads, locking the calls, the conversation and the runs; whatever the interleaving
(a resume claimed by a decision, a run cancelled while it runs a call, a message closing the
calls), every request gets a real answer (never 500 nor 503 ``database_busy``), and each call
ends once: one tool message, one ``tool_call.completed``, its tool run at most once and only
when it succeeded; each run ends once. No sleeps: every wait is bounded. (On SQLite, which
writes one transaction at a time, the same outcomes hold.)

Before the lock order of ``engine.open_calls.lock_open_calls``, every run of this test on
PostgreSQL saw a message or a run's end deadlock with a decision, and a 503.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import httpx
import pytest
from langchain_core.messages import BaseMessage, HumanMessage
from sqlmodel import col, select

from interlock.models.offline import PlannedCall, PlannedReply, PlannedReplyChatModel
from interlock.models.offline.totals import HistoryTotals
from interlock.settings import Settings
from interlock.storage import Conversation, Decision, Event, Message, Run, RunStatus, ToolCall
from support.frontend_tools import CLOCK, PICK
from support.live import LiveServer, live_server
from support.notes import stored_notes

ROUNDS = 12
"""Conversations raced on per test (each a new pause)."""
LINEUPS = (
    ("approve", "reject", "result", "cancel", "message"),
    ("approve", "reject", "result", "cancel"),
    ("approve", "reject", "result"),
)
"""Who races, round after round: everyone; no message (a cancel may meet the resumed run,
running the approved note); the decisions and the result alone (the last one resumes)."""
GO = "go"
TERMINAL_EVENTS = {"run.completed", "run.paused", "run.cancelled", "run.failed"}
CLOSED = {"succeeded", "failed", "rejected", "cancelled", "expired"}


class _RaceModel(PlannedReplyChatModel):
    """Answers ``go`` with the three calls, anything else with a sentence."""

    @property
    def _llm_type(self) -> str:
        return "race-model"

    def plan_reply(self, messages: Sequence[BaseMessage], totals: HistoryTotals) -> PlannedReply:
        if isinstance(messages[-1], HumanMessage) and messages[-1].content == GO:
            return PlannedReply(
                "On it.",
                (
                    PlannedCall("notes_add", {"text": "alpha"}, None),
                    PlannedCall("notes_add", {"text": "beta"}, None),
                    PlannedCall("test_clock", {}, None),
                ),
            )
        return PlannedReply("Done.")


async def _paused(server: LiveServer) -> tuple[str, list[str]]:
    """A new conversation paused on the three calls: its id and the calls' ids, in order."""
    conversation_id = await server.new_conversation()
    log = await server.turn(conversation_id, GO)
    assert log.types[-1] == "run.paused", log.types
    waiting = [e["tool_call"] for e in log.of("tool_call.interrupted")]
    waiting += [e["tool_call"] for e in log.of("tool_call.awaiting_client")]
    by_args = {json.dumps(call["proposed_args"], sort_keys=True): call["id"] for call in waiting}
    return conversation_id, [
        by_args['{"text": "alpha"}'],
        by_args['{"text": "beta"}'],
        by_args["{}"],
    ]


Racer = tuple[str, Callable[[], Any], set[tuple[int, str | None]]]


def _racers(server: LiveServer, conversation_id: str, calls: list[str]) -> list[Racer]:
    """The racing requests: (name, request, the answers it may get as (status, code))."""
    alpha, beta, clock = calls
    client, base = server.client, f"/api/conversations/{conversation_id}"
    decided = {(200, None), (409, "not_interrupted")}
    return [
        ("approve", lambda: server.decide(alpha, type="approve"), decided),
        ("reject", lambda: server.decide(beta, type="reject", message="no"), decided),
        (
            "result",
            lambda: client.post(
                f"/api/tool-calls/{clock}/result",
                json={"text": "Oslo time.", "data": {"time_zone": "Europe/Oslo"}},
            ),
            {(200, None), (409, "not_awaiting_result")},
        ),
        ("cancel", lambda: client.post(f"{base}/cancel"), {(200, None)}),
        (
            "message",
            lambda: client.post(f"{base}/messages", json={"content": "hello"}),
            {(202, None), (409, "run_active")},
        ),
    ]


def _answer(response: httpx.Response) -> tuple[int, str | None]:
    code = response.json().get("error", {}).get("code") if response.status_code >= 400 else None
    return response.status_code, code


def _rows(server: LiveServer, conversation_id: str) -> dict[str, Any]:
    """What the race left in the database."""
    with server.services.db.session() as session:
        conversation = session.get(Conversation, conversation_id)
        calls = session.exec(
            select(ToolCall).where(ToolCall.conversation_id == conversation_id)
        ).all()
        messages = session.exec(
            select(Message).where(Message.conversation_id == conversation_id)
        ).all()
        decisions = session.exec(
            select(Decision).where(Decision.conversation_id == conversation_id)
        ).all()
        runs = session.exec(select(Run).where(Run.conversation_id == conversation_id)).all()
        events = session.exec(
            select(Event).where(Event.conversation_id == conversation_id).order_by(col(Event.seq))
        ).all()
    assert conversation is not None
    return {
        "active_run_id": conversation.active_run_id,
        "calls": {call.id: call for call in calls},
        "messages": list(messages),
        "decisions": list(decisions),
        "runs": list(runs),
        "events": [(e.seq, e.type, e.run_id, json.loads(e.data)) for e in events],
    }


def _check_round(
    answers: dict[str, tuple[int, str | None]], rows: dict[str, Any], calls: list[str]
) -> None:
    """Each call closed once, each run ended once, every answer matching what was stored."""
    alpha, beta, clock = calls
    events = rows["events"]
    assert [seq for seq, *_ in events] == list(range(1, len(events) + 1))  # gap-free, once each
    completed = Counter(
        data["tool_call"]["id"] for _, kind, _, data in events if kind == "tool_call.completed"
    )
    tool_messages = Counter(m.tool_call_id for m in rows["messages"] if m.tool_call_id)
    for call_id in calls:
        call = rows["calls"][call_id]
        assert call.status in CLOSED, (call_id, call.status, answers)
        assert completed[call_id] == 1, (call_id, completed, answers)
        assert tool_messages[call_id] == 1, (call_id, tool_messages, answers)
    decisions = {d.tool_call_id: d.type for d in rows["decisions"]}
    assert len(decisions) == len(rows["decisions"])  # one decision a call at most
    assert (answers["approve"] == (200, None)) == (decisions.get(alpha) == "approve"), answers
    assert (answers["reject"] == (200, None)) == (decisions.get(beta) == "reject"), answers
    if "cancel" not in answers:  # nothing else closes them: decided, the run resumes
        assert (answers["approve"], answers["reject"]) == ((200, None), (200, None)), answers
    assert clock not in decisions
    if rows["calls"][alpha].status == "succeeded":
        assert decisions.get(alpha) == "approve"
    assert rows["calls"][beta].status in ("rejected", "cancelled")
    assert (answers["result"] == (200, None)) == (rows["calls"][clock].status == "succeeded")
    said = [m for m in rows["messages"] if m.role == "user" and m.content == "hello"]
    assert len(said) == (1 if answers.get("message") == (202, None) else 0), answers
    assert rows["active_run_id"] is None
    for run in rows["runs"]:
        assert run.status != RunStatus.running, (run.id, answers)
        kinds = [kind for _, kind, run_id, _ in events if run_id == run.id]
        assert kinds.count("run.started") == 1, (run.id, kinds)
        assert len([k for k in kinds if k in TERMINAL_EVENTS]) == 1, (run.id, kinds)


async def test_racing_requests_on_a_paused_conversation_get_real_answers_and_one_outcome_each(
    make_settings: Callable[..., Settings], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="interlock")
    async with live_server(make_settings(), model=_RaceModel()) as server:
        server.services.registry.register_many([CLOCK, PICK])
        seen: Counter[tuple[str, int, str | None]] = Counter()
        alphas = 0
        for round_ in range(ROUNDS):
            conversation_id, calls = await _paused(server)
            lineup = LINEUPS[round_ % len(LINEUPS)]
            racers = [r for r in _racers(server, conversation_id, calls) if r[0] in lineup]
            responses = await asyncio.gather(*(request() for _, request, _ in racers))
            answers = {name: _answer(r) for (name, _, _), r in zip(racers, responses, strict=True)}
            for (name, _, allowed), response in zip(racers, responses, strict=True):
                assert answers[name] in allowed, (name, response.text)
                seen[(name, *answers[name])] += 1
            await server.idle()
            rows = _rows(server, conversation_id)
            _check_round(answers, rows, calls)
            # The approved note is added at most once, only once its call started, and always
            # when it succeeded; a call whose tool started is never called cancelled (a cancel
            # while it runs closes it outcome_unknown: its effect may be done).
            texts = [text for _, text in stored_notes(server.services.db)]
            added, alphas = texts.count("alpha") - alphas, texts.count("alpha")
            alpha = rows["calls"][calls[0]]
            assert added in (0, 1) and "beta" not in texts, (texts, answers)
            assert added <= (alpha.started_at is not None), (alpha.status, answers)
            assert added >= (alpha.status == "succeeded"), (alpha.status, answers)
            if alpha.started_at is not None:
                assert alpha.status in ("succeeded", "failed"), (alpha.status, answers)
            if alpha.status == "failed" and alpha.started_at is not None:
                assert alpha.error_code == "outcome_unknown", (alpha.error_code, answers)
            seen[("alpha", added, str(alpha.status))] += 1
        retried = [r for r in caplog.records if "run again after" in r.getMessage()]
        deadlocks = [r for r in caplog.records if "deadlock detected" in _logged(r)]
        print(f"answers: {dict(seen)}; run again: {len(retried)}; deadlocks: {len(deadlocks)}")


def _logged(record: logging.LogRecord) -> str:
    """A log record's message and the exception it carries."""
    return record.getMessage() + (str(record.exc_info[1]) if record.exc_info else "")
