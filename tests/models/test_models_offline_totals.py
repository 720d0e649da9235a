"""The offline model's whole-history totals, kept between steps, equal counting afresh."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from interlock.models.offline.totals import HistoryTotals, _counted, history_totals


def _turn(i: int) -> list[BaseMessage]:
    call = {"id": f"call_{i}", "name": "notes_add", "args": {"text": f"t{i}"}, "type": "tool_call"}
    return [
        HumanMessage(f"add a note t{i}"),
        AIMessage("", tool_calls=[call]),
        ToolMessage(f"Added the note t{i}.", tool_call_id=f"call_{i}"),
        AIMessage(f"I added the note t{i} for you."),
    ]


def _same(totals: HistoryTotals, messages: list[BaseMessage]) -> None:
    fresh = _counted(messages)
    assert (totals.words, totals.tool_calls) == (fresh.words, fresh.tool_calls)
    assert totals.system == fresh.system
    assert list(totals.conversation) == list(fresh.conversation)


def test_a_growing_history_has_the_totals_of_counting_every_message() -> None:
    history: list[BaseMessage] = []
    for i in range(1, 6):
        history += _turn(i)
        messages = [SystemMessage(f"You are helpful, step {i}."), *history]
        _same(history_totals(messages), messages)
    assert history_totals([SystemMessage("x"), *history]).tool_calls == 5


def test_a_changed_content_a_shorter_or_rebuilt_history_is_counted_again() -> None:
    history = [*_turn(1), *_turn(2)]
    system = SystemMessage("You are helpful.")
    _same(history_totals([system, *history]), [system, *history])

    history[2].content = "Added the note t1, and more words than before."
    _same(history_totals([system, *history]), [system, *history])
    _same(history_totals([system, *history[:3]]), [system, *history[:3]])
    rebuilt = [history[0], *_turn(7)]
    _same(history_totals([system, *rebuilt]), [system, *rebuilt])


def test_system_messages_and_content_blocks_inside_the_history_are_kept_apart() -> None:
    blocks = HumanMessage(content=[{"type": "text", "text": "three short words"}])
    history = [*_turn(1), SystemMessage("Skills you can load:\n- notes: Notes"), blocks, *_turn(2)]
    messages: list[BaseMessage] = [SystemMessage("You are helpful."), *history]
    for _ in range(2):
        totals = history_totals(messages)
        _same(totals, messages)
        assert len(totals.system) == 2
        assert blocks in totals.conversation
    assert isinstance(blocks.content, list)
    blocks.content.append({"type": "text", "text": "and two"})
    _same(history_totals(messages), messages)


def test_a_model_step_counts_the_history_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The reply and its usage figures share one count (it reads every message's content)."""
    from interlock.models import OfflineChatModel
    from interlock.models.offline import totals as totals_module

    counted: list[int] = []

    def counting(messages: list[BaseMessage]) -> HistoryTotals:
        counted.append(len(messages))
        return history_totals(messages)

    for module in ("interlock.models.offline.streaming", "interlock.models.offline.model"):
        monkeypatch.setattr(f"{module}.history_totals", counting, raising=False)
    monkeypatch.setattr(totals_module, "history_totals", counting)
    messages = [SystemMessage("You are helpful."), *_turn(1), HumanMessage("hello")]
    reply = OfflineChatModel().invoke(messages)
    assert counted == [len(messages)]
    assert reply.usage_metadata is not None
    assert reply.usage_metadata["input_tokens"] == _counted(messages).words
