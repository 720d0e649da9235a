"""http_json failures read in the person's terms; the admin's detail is kept beside them.

The card shows ``ToolError.message``; ``ToolError.detail`` (the request, the status, the
missing path) goes to the model's tool message and the server log. Codes and ``details`` are
unchanged. Only 127.0.0.1 is contacted (``localhost`` allowlisted)."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from langchain_core.messages import ToolMessage

from interlock.adapters.declarative import build_declarative_tool
from interlock.engine.calls import failure as closed_as
from interlock.models.offline.results import describe_result
from interlock.tools import ToolError
from support.https_server import HttpsServer, Reply, Seen, json_reply, make_settings, serve_https

ADMIN_WORDS = re.compile(
    r"HTTP|GET |POST |https?://|response\.|_path|JSON|bytes|Error|\[|\{|query param|URL"
)
"""What only an admin or a program reads: methods, URLs, statuses, spec keys, formats."""


@pytest.fixture
async def server(tmp_path) -> AsyncIterator[HttpsServer]:
    async with serve_https(tmp_path) as running:
        yield running


def forecast(server: HttpsServer, **spec: Any) -> Any:
    full = {
        "name": "weather.forecast",
        "kind": "http_json",
        "title": "Weather forecast",
        "description": "The forecast.",
        "input_schema": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "many": {"type": "array"}},
        },
        "request": {"url": f"https://localhost:{server.port}/v1/{{arguments.city}}"},
        **spec,
    }
    return build_declarative_tool(full, skill="weather", settings=make_settings(server))


async def failure(tool: Any, args: dict[str, Any]) -> ToolError:
    with pytest.raises(ToolError) as caught:
        await tool.handler(args, None)
    return caught.value


def for_a_person(error: ToolError) -> None:
    assert not ADMIN_WORDS.search(error.message), error.message
    assert error.message.lstrip("“")[0].isupper() and error.message.endswith("."), error.message
    assert "Weather forecast" in error.message  # names what the person asked for
    assert error.detail, "the admin's detail is kept"


@pytest.mark.parametrize(
    ("status", "words", "next_step"),
    [
        (401, "refused the request (it needs new credentials)", "Ask your admin."),
        (403, "refused the request", "Ask your admin."),
        (404, "found nothing for this request", "Check what you asked for"),
        (429, "too many requests", "Try again in a few minutes."),
        (500, "had a problem on its side", "Try again later."),
        (302, "has moved", "Ask your admin."),
        (400, "turned the request down", "Ask your admin."),
    ],
)
async def test_a_refused_request_says_what_happened_and_what_to_do(
    server, status, words, next_step
):
    server.route("/v1/Rome", json_reply({"error": "nope"}, status=status))

    error = await failure(forecast(server), {"city": "Rome"})

    for_a_person(error)
    assert (error.code, error.details) == ("upstream_error", {"status": status})
    assert words in error.message and next_step in error.message
    assert f"GET https://localhost:{server.port}/v1/Rome answered HTTP {status}" in (
        error.detail or ""
    )


@pytest.mark.parametrize(
    ("answer", "response", "detail"),
    [
        ({"other": 1}, {"data_path": "current"}, "no 'current' (response.data_path)"),
        (None, {}, "is not JSON"),
    ],
)
async def test_an_unreadable_answer_is_for_the_admin(server, answer, response, detail):
    reply = json_reply(answer) if answer is not None else _raw(b"<html>hi</html>")
    server.route("/v1/Rome", reply)

    error = await failure(forecast(server, response=response), {"city": "Rome"})

    for_a_person(error)
    assert error.code == "invalid_output"
    assert "could not be read. Ask your admin." in error.message
    assert detail in (error.detail or "")


def _raw(body: bytes) -> Any:
    async def send(request: Seen) -> Reply:
        return Reply(body=body)

    return send


async def test_a_timeout_and_a_request_that_cannot_be_built_read_for_a_person(server):
    async def hang(request: Seen) -> Reply:
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    server.route("/v1/Rome", hang)
    slow = await failure(forecast(server, timeout_s=0.3), {"city": "Rome"})
    missing = await failure(forecast(server), {})
    too_many = await failure(
        forecast(
            server,
            request={
                "url": f"https://localhost:{server.port}/v1/x",
                "params": {"m": "{arguments.many}"},
            },
        ),
        {"many": list(range(51))},
    )

    for error in (slow, missing, too_many):
        for_a_person(error)
    assert slow.code == "timeout" and "did not answer within 0.3 seconds" in slow.message
    assert missing.code == "invalid_args" and "the value for “city” is missing" in missing.message
    assert "Argument 'city' must be a non-empty value" in (missing.detail or "")
    assert too_many.code == "invalid_args" and "51 query parameters" in (too_many.detail or "")


async def test_the_card_shows_the_sentence_and_the_model_and_log_keep_the_detail(server, caplog):
    server.route("/v1/Rome", json_reply({}, status=401))
    error = await failure(forecast(server), {"city": "Rome"})

    with caplog.at_level(logging.WARNING, logger="interlock.engine.calls"):
        closed = closed_as(error)

    assert closed["error_code"] == "upstream_error"  # the stable code, unchanged
    assert closed["error_message"] == error.message  # what the card shows
    assert closed["text"].startswith(f"Error [upstream_error]: {error.message} Detail: GET ")
    assert "answered HTTP 401" in caplog.text
    said = describe_result(
        "weather_forecast",
        {"city": "Rome"},
        ToolMessage(content=closed["text"], tool_call_id="c1", status="error"),
    )
    assert "refused the request (it needs new credentials)" in said
    assert not ADMIN_WORDS.search(said), said
