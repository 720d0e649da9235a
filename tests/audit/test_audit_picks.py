"""A pick (one of a choice card's options clicked) is audited ``picked``, not ``edited``.

A choice card of suggestions is decided with an ``edit`` that only sets ``option`` to one of
the call's ``options``: the audit log's outcome filter and the tool metrics count it as a pick.
An edit that changes anything else stays ``edited``. Runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from interlock.audit import is_pick
from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.tools import Permission, ToolContext, tool
from support.live import LiveServer, live_server
from support.sse import collect, terminals

from .conftest import get_json

SettingsMaker = Callable[..., Settings]
OPTIONS = ["tea", "coffee"]


@tool(
    name="test.offer",
    title="Offer a drink",
    description="Offers drinks; the person picks one.",
    input_schema={
        "type": "object",
        "properties": {
            "question": {"type": "string"},
            "options": {"type": "array", "items": {"type": "string"}},
            "option": {"type": "string"},
        },
        "required": ["options"],
    },
    permission=Permission.ASK,
    card="choice",
)
def _offer(args: dict[str, Any], ctx: ToolContext) -> str:
    return f"The person chose {args.get('option')}."


def test_a_pick_is_only_option_set_to_an_offered_option() -> None:
    proposed = {"question": "Drink?", "options": OPTIONS}
    assert is_pick(proposed, {**proposed, "option": "coffee"})
    assert is_pick({**proposed, "option": "tea"}, {**proposed, "option": "coffee"})
    assert not is_pick(proposed, {**proposed, "option": "juice"})  # not offered
    assert not is_pick(proposed, {**proposed, "question": "Food?", "option": "tea"})
    assert not is_pick(proposed, {"question": "Drink?", "options": ["tea"], "option": "tea"})
    assert not is_pick(proposed, proposed)  # no option
    assert not is_pick({"text": "a"}, {"text": "b", "option": "a"})  # no options
    assert not is_pick({"options": [1, 2]}, {"options": [1, 2], "option": True})


async def _offered(server: LiveServer) -> list[str]:
    """A conversation whose turn proposes two offers: their call ids."""
    conversation_id = await server.new_conversation()
    await server.say(conversation_id, "drinks")
    log = await collect(server.client, conversation_id, until=terminals(1))
    return [e["tool_call"]["id"] for e in log.of("tool_call.interrupted")]


async def test_a_pick_is_its_own_outcome_in_the_filter_and_the_metrics(
    make_settings: SettingsMaker,
) -> None:
    args = {"question": "Drink?", "options": OPTIONS}
    model = ScriptedChatModel(
        responses=[
            scripted_message("Offering.", ("test_offer", args), ("test_offer", args)),
            "Done.",
        ]
    )
    async with live_server(make_settings(), model=model) as server:
        server.services.registry.register(_offer)
        picked_id, edited_id = await _offered(server)
        for call_id, chosen in (
            (picked_id, {**args, "option": "coffee"}),
            (edited_id, {**args, "question": "Hot drink?", "option": "tea"}),
        ):
            decided = await server.decide(call_id, type="edit", args=chosen)
            assert decided.status_code == 200, decided.text
        await server.idle()

        picks = await get_json(server, "/api/audit", {}, outcome="picked")
        edits = await get_json(server, "/api/audit", {}, outcome="edited")
        assert [r["tool_call_id"] for r in picks["records"]] == [picked_id]
        assert [r["tool_call_id"] for r in edits["records"]] == [edited_id]
        assert picks["records"][0]["executed_args"]["option"] == "coffee"

        report = await get_json(server, "/api/metrics/tools", {})
        [row] = [r for r in report["tools"] if r["tool"] == "test.offer"]
        assert (row["calls"], row["picked"], row["edited"]) == (2, 1, 1)
        assert row["median_decision_ms"] is not None  # a pick is a person's decision
