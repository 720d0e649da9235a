"""C05 — the pause always reaches the stream (main job).

A message leads to one ASK call, proposed three ways: a built-in skill's tool (``notes.add``),
a tool of a skill folder loaded from ``skills_path``, and a tool registered directly on the
registry. Each time the stream must carry exactly one ``tool_call.interrupted`` for the call,
then exactly one ``run.paused`` (and no other terminal); after the approval the resume run ends
with exactly one ``run.completed``. :func:`assert_one_terminal_per_run` checks that every run
of the conversation has exactly one terminal event, so a run ending with neither a final
answer nor a pause fails the test (shown by the last test).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import col, select

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.skills.loader import MODULE_PREFIX
from interlock.storage import Run
from interlock.tools import Permission, ToolContext, tool
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import TERMINAL, EventLog, Frame, collect, terminals

SKILL_TOOLS = """\
from pathlib import Path

from interlock.tools import Permission, tool

LOG = Path({log!r})


@tool(name="c05probe.confirm", title="Confirm", description="Asks first.",
      input_schema={{"type": "object", "properties": {{"what": {{"type": "string"}}}},
                    "required": ["what"], "additionalProperties": False}},
      permission=Permission.ASK, write=True)
def confirm(args, ctx):
    with LOG.open("a", encoding="utf-8") as out:
        out.write(args["what"] + "\\n")
    return "confirmed " + args["what"]
"""

SKILL_MD = "---\nname: c05probe\ndescription: A probe skill for C05.\n---\nAsk first.\n"


def assert_one_terminal_per_run(log: EventLog, run_ids: list[str]) -> None:
    """Every run has exactly one ``run.started`` and exactly one terminal event.

    Args:
        log: The conversation's whole event log.
        run_ids: The conversation's runs, from storage.
    """
    started: dict[str, int] = {}
    ended: dict[str, list[str]] = {}
    for frame in log.frames:
        run_id = frame.data["run_id"]
        if frame.event == "run.started":
            started[run_id] = started.get(run_id, 0) + 1
        if frame.event in TERMINAL:
            ended.setdefault(run_id, []).append(frame.event or "")
    assert set(started) == set(run_ids), (started, run_ids)
    for run_id in run_ids:
        assert started[run_id] == 1, f"run {run_id} started {started[run_id]} times"
        terminal = ended.get(run_id, [])
        assert len(terminal) == 1, f"run {run_id} ended with {terminal or 'no terminal event'}"


async def _all_events(server: LiveServer, conversation_id: str) -> EventLog:
    response = await server.client.get(f"/api/conversations/{conversation_id}")
    last = response.json()["last_event_seq"]
    assert last > 0
    return await collect(
        server.client, conversation_id, until=lambda log: int(log.frames[-1].id or 0) >= last
    )


def _run_ids(server: LiveServer, conversation_id: str) -> list[str]:
    with server.services.db.session() as session:
        return list(
            session.exec(
                select(Run.id)
                .where(Run.conversation_id == conversation_id)
                .order_by(col(Run.created_at))
            ).all()
        )


@pytest.fixture
def _forget_probe_skill() -> Iterator[None]:
    yield
    sys.modules.pop(MODULE_PREFIX + "c05probe", None)


def _notes(server: LiveServer) -> list[str]:
    return [text for _, text in stored_notes(server.services.db)]


@pytest.mark.usefixtures("_forget_probe_skill")
@pytest.mark.parametrize("source", ["builtin_skill", "loaded_skill", "direct"])
async def test_case_c05_one_interrupted_then_one_paused_for_an_ask_call(
    make_settings: Callable[..., Settings], tmp_path: Path, source: str
) -> None:
    executions: list[str] = []
    skill_log = tmp_path / "c05probe.log"
    settings = make_settings()
    if source == "builtin_skill":
        call = ("notes_add", {"text": "from the notes skill"})
        expected_name = "notes.add"
    elif source == "loaded_skill":
        skills_dir = tmp_path / "more-skills"
        (skills_dir / "c05probe").mkdir(parents=True)
        (skills_dir / "c05probe" / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
        (skills_dir / "c05probe" / "tools.py").write_text(
            SKILL_TOOLS.format(log=str(skill_log)), encoding="utf-8"
        )
        settings = make_settings(skills_path=[skills_dir])
        call = ("c05probe_confirm", {"what": "from a loaded skill"})
        expected_name = "c05probe.confirm"
    else:
        call = ("c05direct_confirm", {"what": "direct"})
        expected_name = "c05direct.confirm"

    replies: list[Any] = [scripted_message("One moment.", call), "Done."]
    if source == "loaded_skill":
        # Progressive disclosure: the skill's tools are offered once the model loads it.
        replies.insert(0, scripted_message("Loading it.", ("load_skill", {"name": "c05probe"})))
    model = ScriptedChatModel(responses=replies)
    async with live_server(settings, model=model) as server:
        if source == "direct":

            @tool(
                name="c05direct.confirm",
                title="Confirm",
                description="Asks first.",
                input_schema={
                    "type": "object",
                    "properties": {"what": {"type": "string"}},
                    "required": ["what"],
                },
                permission=Permission.ASK,
            )
            def confirm(args: dict[str, Any], ctx: ToolContext) -> str:
                executions.append(args["what"])
                return "confirmed"

            server.services.registry.register(confirm)
        assert server.services.registry.get(expected_name) is not None

        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "please do it")
        await collect(server.client, conversation_id, until=terminals(1))
        await server.idle()
        log = await _all_events(server, conversation_id)  # everything, after the run ended

        interrupted = log.of("tool_call.interrupted")
        assert len(interrupted) == 1, log.types
        tool_call = interrupted[0]["tool_call"]
        assert tool_call["name"] == expected_name
        assert tool_call["status"] == "interrupted"
        assert tool_call["permission"] == "ASK"
        assert [t for t in log.types if t in TERMINAL] == ["run.paused"]
        assert log.types.index("tool_call.interrupted") < log.types.index("run.paused")
        assert log.types[-1] == "run.paused"
        assert log.of("run.paused")[0]["pending"] == [tool_call["id"]]
        runs = _run_ids(server, conversation_id)
        assert len(runs) == 1
        assert_one_terminal_per_run(log, runs)
        pending = await server.client.get(f"/api/conversations/{conversation_id}/pending")
        assert [c["id"] for c in pending.json()] == [tool_call["id"]]

        # Nothing ran before the decision.
        assert executions == [] and not skill_log.exists() and _notes(server) == []

        response = await server.decide(tool_call["id"], type="approve")
        assert response.status_code == 200, response.text
        log = await collect(server.client, conversation_id, until=terminals(2))
        assert log.types[-1] == "run.completed", log.types
        await server.idle()
        log = await _all_events(server, conversation_id)
        runs = _run_ids(server, conversation_id)
        assert len(runs) == 2
        assert_one_terminal_per_run(log, runs)
        assert [t for t in log.types if t in TERMINAL] == ["run.paused", "run.completed"]
        assert len(log.of("tool_call.interrupted")) == 1

        # The call ran exactly once.
        if source == "builtin_skill":
            assert _notes(server) == ["from the notes skill"]
        elif source == "loaded_skill":
            assert skill_log.read_text(encoding="utf-8") == "from a loaded skill\n"
        else:
            assert executions == ["direct"]


def _frame(seq: int, type_: str, run_id: str, **data: Any) -> Frame:
    return Frame(
        id=str(seq), event=type_, data={"type": type_, "seq": seq, "run_id": run_id, **data}
    )


def test_case_c05_a_run_without_final_answer_or_pause_fails_the_check() -> None:
    ok = EventLog(
        frames=[
            _frame(1, "run.started", "run_1", trigger="message"),
            _frame(2, "tool_call.interrupted", "run_1", tool_call={}),
            _frame(3, "run.paused", "run_1", pending=["call_1"]),
        ]
    )
    assert_one_terminal_per_run(ok, ["run_1"])

    silent = EventLog(
        frames=[
            _frame(1, "run.started", "run_1", trigger="message"),
            _frame(2, "message.delta", "run_1", delta="Hi"),
        ]
    )
    with pytest.raises(AssertionError, match="no terminal event"):
        assert_one_terminal_per_run(silent, ["run_1"])

    twice = EventLog(frames=[*ok.frames, _frame(4, "run.completed", "run_1")])
    with pytest.raises(AssertionError):
        assert_one_terminal_per_run(twice, ["run_1"])

    unseen = EventLog(frames=ok.frames)
    with pytest.raises(AssertionError):
        assert_one_terminal_per_run(unseen, ["run_1", "run_2"])
