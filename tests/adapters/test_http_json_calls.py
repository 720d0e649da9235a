"""http_json tools against a local HTTPS server: requests built from arguments, answers mapped,
credentials sent but never shown. Only 127.0.0.1 is contacted (``localhost`` allowlisted)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from interlock.adapters.declarative import build_declarative_tool
from interlock.tools import ToolError, ToolRegistry
from support.https_server import HttpsServer, Reply, Seen, json_reply, make_settings, serve_https

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer"},
        "metric": {"type": "boolean"},
        "ratio": {"type": "number"},
        "tags": {"type": "array", "items": {"type": ["string", "null"]}},
        "note": {"type": ["string", "null"]},
        "id": {"type": "string"},
    },
}
SECRET = "Bearer s3cret-token-value"
API_KEY = "k3y-abcdef"


@pytest.fixture
async def server(tmp_path) -> AsyncIterator[HttpsServer]:
    async with serve_https(tmp_path) as running:
        yield running


def http_tool(server: HttpsServer, path: str = "/v1/current", **spec: Any) -> Any:
    request = {"url": f"https://localhost:{server.port}{path}", **spec.pop("request", {})}
    full = {
        "name": "weather.current",
        "kind": "http_json",
        "title": "Weather",
        "description": "Weather.",
        "input_schema": SCHEMA,
        "request": request,
        **spec,
    }
    connections = {"weather": {"headers": {"Authorization": SECRET}, "params": {"key": API_KEY}}}
    settings = make_settings(server, connections=connections)
    return build_declarative_tool(full, skill="weather", settings=settings)


async def test_get_params_keep_types_repeat_lists_and_omit_null_and_missing(server):
    server.route("/v1/current", json_reply({"ok": 1}))
    tool = http_tool(
        server,
        request={
            "params": {
                "q": "{arguments.city}",
                "days": "{arguments.days}",
                "metric": "{arguments.metric}",
                "ratio": "{arguments.ratio}",
                "tag": "{arguments.tags}",
                "note": "{arguments.note}",
                "id": "{arguments.id}",
                "label": "city:{arguments.city}",
                "limit": 10,
                "both": ["fixed", "{arguments.city}", None],
            }
        },
    )

    await tool.handler(
        {
            "city": "São Paulo",
            "days": 3,
            "metric": True,
            "ratio": 2.5,
            "tags": ["a", None, "b"],
            "note": None,
        },
        None,
    )

    (seen,) = server.requests
    assert seen.method == "GET"
    assert seen.query == [
        ("q", "São Paulo"),
        ("days", "3"),
        ("metric", "true"),
        ("ratio", "2.5"),
        ("tag", "a"),
        ("tag", "b"),
        ("label", "city:São Paulo"),
        ("limit", "10"),
        ("both", "fixed"),
        ("both", "São Paulo"),
    ]
    assert seen.body == b""


async def test_path_placeholders_are_percent_encoded_whole(server):
    server.route("/v1/a%2Fb%20c%3F/current", json_reply({"ok": 1}))
    tool = http_tool(server, path="/v1/{arguments.id}/current")

    result = await tool.handler({"id": "a/b c?"}, None)

    assert result.data == {"ok": 1}
    assert [r.path for r in server.requests] == ["/v1/a%2Fb%20c%3F/current"]


async def test_post_body_is_templated_recursively(server):
    server.route("/v1/notes", json_reply({"created": {"id": 7}}, status=201))
    tool = http_tool(
        server,
        path="/v1/notes",
        request={
            "method": "POST",
            "body": {
                "city": "{arguments.city}",
                "days": "{arguments.days}",
                "text": "{arguments.city} for {arguments.days} days",
                "meta": {"tags": "{arguments.tags}", "gone": "{arguments.id}", "fixed": [1, None]},
                "note": "{arguments.note}",
            },
        },
        response={"data_path": "created"},
    )

    result = await tool.handler({"city": "Oslo", "days": 2, "tags": ["x"], "note": None}, None)

    (seen,) = server.requests
    assert seen.method == "POST"
    assert seen.headers["content-type"] == "application/json"
    assert seen.json() == {
        "city": "Oslo",
        "days": 2,
        "text": "Oslo for 2 days",
        "meta": {"tags": ["x"], "fixed": [1, None]},
        "note": None,
    }
    assert result.data == {"id": 7}
    assert tool.write is True


async def test_single_mapping_uses_summary_and_data_paths(server):
    server.route(
        "/v1/current",
        json_reply({"current": {"summary": "Sunny, 21°C", "hours": [{"t": 20}, {"t": 22}]}}),
    )
    tool = http_tool(
        server, response={"summary_path": "current.summary", "data_path": "current.hours.1"}
    )

    result = await tool.handler({}, None)

    assert result.text == "Sunny, 21°C"
    assert result.data == {"t": 22}


async def test_without_a_summary_the_text_is_compact_json_of_the_data(server):
    server.route("/v1/current", json_reply([{"t": 1}, {"t": 2}]))
    tool = http_tool(server)

    result = await tool.handler({}, None)

    assert result.text == '[{"t":1},{"t":2}]'
    assert result.data == [{"t": 1}, {"t": 2}]


async def test_list_mapping_builds_items_and_a_capped_text(server):
    hits = [
        {
            "id": i,
            "name": None,
            "headline": f"Title {i}",
            "link": f"https://ex.com/{i}",
            "body": {"snippet": "x" * 600 if i == 0 else f"Snippet {i}", "more": "More"},
        }
        for i in range(12)
    ]
    server.route("/v1/search", json_reply({"data": {"hits": hits, "total": 12}}))
    tool = http_tool(
        server,
        path="/v1/search",
        response={
            "collection_path": "data.hits",
            "id_path": "id",
            "title_paths": ["name", "headline"],
            "url_path": "link",
            "content_paths": ["body.snippet", "body.missing", "body.more"],
            "max_items": 3,
        },
    )

    result = await tool.handler({}, None)

    items = result.data["items"]
    assert len(items) == 3
    assert items[1] == {
        "id": 1,
        "title": "Title 1",
        "url": "https://ex.com/1",
        "content": "Snippet 1\nMore",
    }
    assert items[0]["content"] == "x" * 600 + "\nMore"
    lines = result.text.splitlines()
    assert lines[0] == "3 of 12 results:"
    assert lines[1:3] == ["1. Title 0", "   https://ex.com/0"]
    assert len(lines[3]) == 3 + 500 and lines[3].endswith("…")
    assert "2. Title 1" in lines


async def test_an_empty_list_says_so(server):
    server.route("/v1/search", json_reply({"hits": []}))
    tool = http_tool(server, path="/v1/search", response={"collection_path": "hits"})

    result = await tool.handler({}, None)

    assert (result.text, result.data) == ("No results.", {"items": []})


async def test_connection_headers_and_params_are_sent_but_never_shown(server):
    async def echo(request: Seen) -> Reply:
        return Reply(
            json={
                "summary": f"you sent {request.headers['authorization']}",
                "data": {"headers": request.headers, "query": request.query},
            }
        )

    server.route("/v1/current", echo)
    tool = http_tool(
        server,
        request={"connection": "weather", "params": {"q": "{arguments.city}"}},
        response={"summary_path": "summary", "data_path": "data"},
    )

    result = await tool.handler({"city": "Rome"}, None)

    (seen,) = server.requests
    assert seen.headers["authorization"] == SECRET
    assert seen.query == [("q", "Rome"), ("key", API_KEY)]
    shown = result.text + json.dumps(result.data)
    assert "s3cret-token-value" not in shown and API_KEY not in shown
    assert result.text == "you sent [redacted]"
    assert ["key", "[redacted]"] in result.data["query"]


async def test_errors_do_not_show_the_query_string_or_credentials(server):
    server.route("/v1/current", json_reply({"error": SECRET}, status=401))
    tool = http_tool(server, request={"connection": "weather", "params": {"q": "{arguments.city}"}})

    with pytest.raises(ToolError) as caught:
        await tool.handler({"city": "Rome"}, None)

    error = caught.value
    assert error.code == "upstream_error"
    assert error.details == {"status": 401}
    assert error.message == (
        "The service behind “Weather” refused the request (it needs new credentials). "
        "Ask your admin."
    )
    assert error.detail == (f"GET https://localhost:{server.port}/v1/current answered HTTP 401.")


async def test_through_the_registry_a_valid_answer_passes_the_output_schema(server, ctx):
    server.route("/v1/current", json_reply({"current": {"t": 21}}))
    tool = http_tool(
        server,
        permission="ALLOW",
        response={"data_path": "current"},
        output_schema={
            "type": "object",
            "properties": {"t": {"type": "integer"}},
            "required": ["t"],
        },
    )
    registry = ToolRegistry()
    registry.register(tool)

    assert registry.validate_args(tool, {"days": "3"})[0].rule == "type"
    result = await registry.execute(tool, {"city": "Rome"}, ctx)

    assert result.data == {"t": 21}


async def test_through_the_registry_an_output_schema_mismatch_is_invalid_output(server, ctx):
    server.route("/v1/current", json_reply({"current": {"t": "very-private-value"}}))
    tool = http_tool(
        server,
        response={"data_path": "current"},
        output_schema={"type": "object", "properties": {"t": {"type": "integer"}}},
    )
    registry = ToolRegistry()
    registry.register(tool)

    with pytest.raises(ToolError) as caught:
        await registry.execute(tool, {}, ctx)

    assert caught.value.code == "invalid_output"
    assert "very-private-value" not in f"{caught.value.message} {caught.value.details}"
