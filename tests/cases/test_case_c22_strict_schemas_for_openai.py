"""C22 — strict schemas for OpenAI (MCP and main job).

A tool schema ``{q: string required, opts: {limit: integer}}`` and one using ``allOf``/``$ref``,
sent to an OpenAI-compatible model with strict tool calling on (``INTERLOCK_MODEL_STRICT_TOOLS``).
Must: either a strict-valid conversion (every object closed, optional fields nullable, refs
inlined, nulls turned back into "absent" before Interlock's own validation) or strict switched
off for that tool; never a 400 from the model server; local validation still uses the original
schema.

Driven end to end: ``ChatOpenAI`` against the scripted stub server on loopback, which checks
every strict tool the way OpenAI does and answers 400 otherwise; and against a server that
refuses strict altogether (the request goes again without it).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from interlock.settings import Settings
from interlock.skills.loader import MODULE_PREFIX
from support.live import live_server
from support.openai_stub import OpenAIStub, StubReply, StubToolCall, strict_schema_problems
from support.sse import collect, terminals

SettingsMaker = Callable[..., Settings]

SKILL_MD = """---
name: finder
description: Find things and schedule events.
---
Use finder.search to search and finder.schedule to schedule.
"""

TOOLS_PY = """
from typing import Any

from interlock.tools import Permission, ToolContext, ToolResult, tool

SEARCH_SCHEMA = {
    "type": "object",
    "properties": {
        "q": {"type": "string", "minLength": 1},
        "opts": {"type": "object", "properties": {"limit": {"type": "integer", "minimum": 1}}},
    },
    "required": ["q"],
}
SCHEDULE_SCHEMA = {
    "type": "object",
    "$defs": {
        "when": {
            "type": "object",
            "properties": {
                "date": {"type": "string", "format": "date"},
                "note": {"type": "string"},
            },
            "required": ["date"],
        }
    },
    "properties": {
        "title": {"type": "string", "maxLength": 40},
        "when": {"allOf": [{"$ref": "#/$defs/when"}], "description": "When it happens."},
    },
    "required": ["title", "when"],
    "additionalProperties": False,
}
TAG_SCHEMA = {
    "type": "object",
    "properties": {"labels": {"type": "object", "additionalProperties": {"type": "string"}}},
    "required": ["labels"],
}


def _echo(args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return ToolResult(text="ok", data=args)


search = tool(
    name="finder.search", title="Search", description="Search.", input_schema=SEARCH_SCHEMA,
    permission=Permission.ALLOW,
)(_echo)
schedule = tool(
    name="finder.schedule", title="Schedule", description="Schedule an event.",
    input_schema=SCHEDULE_SCHEMA, write=True,
)(_echo)
tag = tool(
    name="finder.tag", title="Tag", description="Tag things.", input_schema=TAG_SCHEMA,
    permission=Permission.ALLOW,
)(_echo)
"""


@pytest.fixture
def finder_skill(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "skills" / "finder"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL_MD, encoding="utf-8")
    (folder / "tools.py").write_text(TOOLS_PY, encoding="utf-8")
    yield folder.parent
    sys.modules.pop(f"{MODULE_PREFIX}finder", None)


@pytest.fixture
def openai_stub() -> Iterator[tuple[OpenAIStub, str]]:
    stub = OpenAIStub()
    with stub.running() as base_url:
        yield stub, base_url


@pytest.fixture
def stub_settings(make_settings: SettingsMaker, finder_skill: Path) -> Callable[..., Settings]:
    """``stub_settings(base_url, strict=True)``: settings whose model is the OpenAI-compatible
    stub at ``base_url``, with the finder skill; strict tool calling on, or left at its
    default (``strict=False``)."""

    def make(base_url: str, *, strict: bool = True) -> Settings:
        return make_settings(
            model="openai:gpt-4o-mini",
            model_base_url=base_url,
            model_api_key="test",
            skills_path=[finder_skill],
            **({"model_strict_tools": True} if strict else {}),
        )

    return make


def _strict_flags(stub: OpenAIStub) -> list[bool]:
    """Per request the stub received: whether any tool was sent strict."""
    return [any(t["function"].get("strict") for t in r.body["tools"]) for r in stub.requests]


def _call(call_id: str, name: str, args: dict[str, Any]) -> StubToolCall:
    text = json.dumps(args)
    return StubToolCall(call_id, name, [text[:5], text[5:]])


async def test_case_c22_strict_tool_calling_converts_or_switches_off_and_never_gets_a_400(
    stub_settings: Callable[..., Settings], openai_stub: tuple[OpenAIStub, str]
) -> None:
    stub, base_url = openai_stub
    stub.add_reply(StubReply(tool_calls=[_call("c1", "load_skill", {"name": "finder"})]))
    stub.add_reply(
        StubReply(
            tool_calls=[
                # Optional fields sent as null, the way a strict model sends "absent".
                _call("c2", "finder_search", {"q": "cats", "opts": None}),
                _call("c3", "finder_search", {"q": "dogs", "opts": {"limit": None}}),
                _call("c4", "finder_search", {"q": "", "opts": {"limit": 0}}),
                _call(
                    "c5",
                    "finder_schedule",
                    {"title": "Vet", "when": {"date": "2026-12-01", "note": None}},
                ),
                _call("c6", "finder_tag", {"labels": {"pet": "cat"}}),
            ]
        )
    )
    stub.add_reply(StubReply(text_tokens=["All done."]))
    settings = stub_settings(base_url)

    async with live_server(settings) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "find cats and dogs, schedule the vet, tag the cat")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        (card,) = [e["tool_call"] for e in log.of("tool_call.interrupted")]
        # The card shows the arguments as the tool's own schema means them: no nulls.
        assert card["name"] == "finder.schedule"
        assert card["proposed_args"] == {"title": "Vet", "when": {"date": "2026-12-01"}}
        response = await server.decide(card["id"], type="approve")
        assert response.status_code == 200, response.text
        log = await collect(
            server.client, conversation_id, until=terminals(1), last_event_id=log.frames[-1].id
        )
        assert log.types[-1] == "run.completed", log.types
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()

    calls = {
        c["name"] + ":" + json.dumps(c["proposed_args"]): c
        for m in detail["messages"]
        for c in m["tool_calls"]
    }
    stored = [
        (c["name"], c["proposed_args"], c["status"])
        for m in detail["messages"]
        for c in m["tool_calls"]
    ]
    assert stored == [
        ("load_skill", {"name": "finder"}, "succeeded"),
        ("finder.search", {"q": "cats"}, "succeeded"),
        ("finder.search", {"q": "dogs", "opts": {}}, "succeeded"),
        # Strict mode cannot carry minLength/minimum: Interlock's own validation still does.
        ("finder.search", {"q": "", "opts": {"limit": 0}}, "failed"),
        ("finder.schedule", {"title": "Vet", "when": {"date": "2026-12-01"}}, "succeeded"),
        ("finder.tag", {"labels": {"pet": "cat"}}, "succeeded"),
    ]
    refused = calls['finder.search:{"q": "", "opts": {"limit": 0}}']
    assert refused["error"]["code"] == "invalid_args"

    # Every request reached the model (no 400), and every strict tool was strict-valid.
    assert len(stub.requests) == 3
    for request in stub.requests:
        for spec in request.body["tools"]:
            if spec["function"].get("strict"):
                assert strict_schema_problems(spec["function"]["parameters"]) == []
    sent = {t["function"]["name"]: t["function"] for t in stub.requests[1].body["tools"]}
    assert sent["finder_search"]["strict"] is True
    assert sent["finder_search"]["parameters"] == {
        "type": "object",
        "properties": {
            "q": {"type": "string"},
            "opts": {
                "type": ["object", "null"],
                "properties": {"limit": {"type": ["integer", "null"], "minimum": 1}},
                "required": ["limit"],
                "additionalProperties": False,
            },
        },
        "required": ["q", "opts"],
        "additionalProperties": False,
    }
    assert sent["finder_schedule"]["strict"] is True
    assert sent["finder_schedule"]["parameters"] == {
        "type": "object",
        "properties": {
            "title": {"type": "string"},
            "when": {
                "description": "When it happens.",
                "type": "object",
                "properties": {
                    "date": {"type": "string", "format": "date"},
                    "note": {"type": ["string", "null"]},
                },
                "required": ["date", "note"],
                "additionalProperties": False,
            },
        },
        "required": ["title", "when"],
        "additionalProperties": False,
    }
    # A free-form map has no strict form: that tool alone goes without strict, as declared.
    assert "strict" not in sent["finder_tag"]
    assert sent["finder_tag"]["parameters"]["properties"]["labels"] == {
        "type": "object",
        "additionalProperties": {"type": "string"},
    }
    assert sent["load_skill"]["strict"] is True


async def test_case_c22_strict_off_by_default_sends_the_schemas_as_declared(
    stub_settings: Callable[..., Settings], openai_stub: tuple[OpenAIStub, str]
) -> None:
    stub, base_url = openai_stub
    stub.add_reply(StubReply(tool_calls=[_call("c1", "load_skill", {"name": "finder"})]))
    stub.add_reply(
        StubReply(tool_calls=[_call("c2", "finder_search", {"q": "cats", "opts": None})])
    )
    stub.add_reply(StubReply(text_tokens=["Done."]))
    settings = stub_settings(base_url, strict=False)

    async with live_server(settings) as server:
        conversation_id = await server.new_conversation()
        await server.say(conversation_id, "find cats")
        log = await collect(server.client, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.completed", log.types
        detail = (await server.client.get(f"/api/conversations/{conversation_id}")).json()

    sent = {t["function"]["name"]: t["function"] for t in stub.requests[1].body["tools"]}
    assert all("strict" not in f for f in sent.values())
    assert "allOf" in json.dumps(sent["finder_schedule"]["parameters"])
    # Without strict a null stays a null: the original schema refuses it.
    (search,) = [
        c for m in detail["messages"] for c in m["tool_calls"] if c["name"] == "finder.search"
    ]
    assert search["proposed_args"] == {"q": "cats", "opts": None}
    assert search["error"]["code"] == "invalid_args"


async def test_case_c22_a_server_refusing_strict_gets_the_request_again_without_it(
    stub_settings: Callable[..., Settings],
) -> None:
    stub = OpenAIStub(refuse_strict=True)
    stub.add_reply(StubReply(tool_calls=[_call("c1", "load_skill", {"name": "finder"})]))
    stub.add_reply(StubReply(text_tokens=["Loaded."]))
    stub.add_reply(StubReply(text_tokens=["Still here."]))
    with stub.running() as base_url:
        settings = stub_settings(base_url)
        async with live_server(settings) as server:
            conversation_id = await server.new_conversation()
            await server.say(conversation_id, "load the finder")
            log = await collect(server.client, conversation_id, until=terminals(1))
            assert log.types[-1] == "run.completed", log.types
            await server.say(conversation_id, "and again")
            log = await collect(server.client, conversation_id, until=terminals(2))

    assert log.types[-1] == "run.completed", log.types
    said = [m["message"]["content"] for m in log.of("message.completed")]
    assert said[-1] == "Still here." and "Loaded." in said, said
    # The first model call: the strict request (refused with 400), then the same without
    # strict. That server is then known to refuse strict: each later step (the second call
    # of the turn, the next turn) sends one request, without strict.
    assert _strict_flags(stub) == [True, False, False, False]
    assert stub.requests[0].body["messages"] == stub.requests[1].body["messages"]


async def test_case_c22_a_request_refused_with_and_without_strict_is_not_remembered(
    stub_settings: Callable[..., Settings],
) -> None:
    # A 400 to both requests (a request too long, say) says nothing about strict mode: the
    # next turn tries strict first again.
    stub = OpenAIStub(refuse_all=True)
    with stub.running() as base_url:
        settings = stub_settings(base_url)
        async with live_server(settings) as server:
            conversation_id = await server.new_conversation()
            for n, text in enumerate(["load the finder", "try again"], start=1):
                await server.say(conversation_id, text)
                log = await collect(server.client, conversation_id, until=terminals(n))
                assert log.types[-1] == "run.failed", log.types

    assert _strict_flags(stub) == [True, False, True, False]
