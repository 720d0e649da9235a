"""http_json failures: bad answers, statuses, redirects, timeouts, unknown write outcomes, limits.
Only 127.0.0.1 is contacted (``localhost`` allowlisted)."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from interlock.adapters import http_json
from interlock.adapters.declarative import build_declarative_tool
from interlock.tools import ToolError, ToolRegistry
from support.https_server import HttpsServer, Reply, Seen, json_reply, make_settings, serve_https

SCHEMA = {
    "type": "object",
    "properties": {"q": {"type": "string"}, "many": {"type": "array"}, "id": {"type": "string"}},
}


@pytest.fixture
async def server(tmp_path) -> AsyncIterator[HttpsServer]:
    async with serve_https(tmp_path) as running:
        yield running


def http_tool(
    server: HttpsServer, path: str = "/x", *, port: int | None = None, **spec: Any
) -> Any:
    url = f"https://localhost:{port or server.port}{path}"
    full = {
        "name": "svc.call",
        "kind": "http_json",
        "title": "Call",
        "description": "Call the service.",
        "input_schema": SCHEMA,
        "request": {"url": url, **spec.pop("request", {})},
        **spec,
    }
    return build_declarative_tool(full, skill="svc", settings=make_settings(server))


async def failure(tool: Any, args: dict[str, Any] | None = None) -> ToolError:
    with pytest.raises(ToolError) as caught:
        await tool.handler(args or {}, None)
    return caught.value


async def hang(request: Seen) -> Reply:
    await asyncio.Event().wait()  # never set: the server never answers
    raise AssertionError("unreachable")


async def hang_up(request: Seen) -> None:
    return None  # close the connection without answering


SENT_TIMEOUT_S = 5.0
"""A tool timeout no busy machine reaches before the request is sent (a timeout during the TLS
handshake is a plain ``timeout``, rightly): for the cases about a write whose answer is lost."""


@pytest.mark.parametrize(
    ("response", "answer", "words"),
    [
        ({"data_path": "current"}, {"other": 1}, "no 'current' (response.data_path)"),
        ({"summary_path": "a.b", "data_path": ""}, {"a": {}}, "no 'a.b' (response.summary_path)"),
        ({"data_path": "items.3"}, {"items": [1, 2]}, "no 'items.3'"),
        ({"collection_path": "hits"}, {"hits": {"a": 1}}, "collection_path is no list"),
        ({"collection_path": "hits"}, {}, "no 'hits' (response.collection_path)"),
        (
            {"collection_path": "", "title_paths": ["t", "name"]},
            [{"t": "x"}, {"u": 1}],
            "no 't or name' in item 1",
        ),
        ({"collection_path": "", "id_path": "id"}, [{"id": 1}, {}], "no 'id' in item 1"),
    ],
)
async def test_a_missing_path_is_invalid_output(server, response, answer, words):
    server.route("/x", json_reply(answer))

    error = await failure(http_tool(server, response=response))

    assert error.code == "invalid_output"
    assert words in (error.detail or "")


@pytest.mark.parametrize(
    "body",
    [
        b"<html>hi</html>",
        b"",
        b'{"a": NaN}',
        b"\xff\xfe",
        b"[" * 50_000 + b"]" * 50_000,  # nested too deeply for the reader (RecursionError)
        b'{"n": 1' + b"0" * 4_999 + b"}",  # a 5000-digit number (ValueError)
    ],
)
async def test_an_answer_that_is_not_json_is_invalid_output(server, body):
    server.route("/x", lambda request: _reply(Reply(body=body)))

    error = await failure(http_tool(server))

    assert error.code == "invalid_output"
    assert "is not JSON" in (error.detail or "")


async def _reply(reply: Reply) -> Reply:
    return reply


async def test_an_answer_over_the_size_limit_is_invalid_output(server, monkeypatch):
    monkeypatch.setattr(http_json, "MAX_RESPONSE_BYTES", 1000)
    server.route("/x", json_reply({"blob": "x" * 5000}))

    error = await failure(http_tool(server))

    assert error.code == "invalid_output"
    assert "over 1,000 bytes" in (error.detail or "")


@pytest.mark.parametrize("status", [400, 404, 429, 500, 503])
async def test_a_non_2xx_status_is_upstream_error_with_the_status(server, status):
    server.route("/x", json_reply({"error": "nope"}, status=status))

    error = await failure(http_tool(server))

    assert error.code == "upstream_error"
    assert error.details == {"status": status}
    assert (error.detail or "").endswith(f"answered HTTP {status}.")


@pytest.mark.parametrize("method", ["GET", "POST"])
async def test_a_redirect_is_not_followed(server, method):
    target = f"https://localhost:{server.port}/target"
    server.route("/x", lambda r: _reply(Reply(status=302, headers={"Location": target})))
    server.route("/target", json_reply({"followed": True}))
    tool = http_tool(server, request={"method": method})

    error = await failure(tool)

    assert error.code == "upstream_error"
    assert error.details == {"status": 302}
    assert "redirects are not followed" in (error.detail or "")
    assert server.hits("/target") == []
    assert len(server.hits("/x")) == 1


async def test_a_read_that_times_out_is_timeout(server):
    server.route("/x", hang)
    tool = http_tool(server, timeout_s=0.3)
    started = time.monotonic()

    error = await failure(tool)

    assert error.code == "timeout"
    assert "did not finish within 0.3 seconds" in (error.detail or "")
    assert time.monotonic() - started < 20  # the tool's 0.3 s, not a 30 s default


# 0.3 s could run out during the TLS handshake on a busy machine: a plain timeout, not what
# these cases are about.
@pytest.mark.parametrize(
    ("handler", "timeout_s"),
    [(hang, SENT_TIMEOUT_S), (hang_up, SENT_TIMEOUT_S)],
    ids=["no-answer", "hung-up"],
)
async def test_a_write_sent_without_a_confirmed_answer_is_outcome_unknown(
    server, handler, timeout_s
):
    server.route("/x", handler)
    tool = http_tool(
        server, timeout_s=timeout_s, request={"method": "POST", "body": {"q": "{arguments.q}"}}
    )

    error = await failure(tool, {"q": "pay 10 EUR"})

    assert error.code == "outcome_unknown"
    assert "may or may not have taken effect" in (error.detail or "")
    assert "not retried" in (error.hint or "")
    assert len(server.hits("/x")) == 1  # sent once, never retried


async def test_a_read_only_post_that_times_out_is_a_plain_timeout(server):
    server.route("/x", hang)
    tool = http_tool(server, timeout_s=0.3, write=False, request={"method": "POST", "body": {}})

    assert (await failure(tool)).code == "timeout"


async def test_a_get_whose_connection_hangs_up_is_upstream_error(server):
    server.route("/x", hang_up)

    error = await failure(http_tool(server))

    assert error.code == "upstream_error"
    assert error.details is None


async def test_a_write_that_never_connected_is_upstream_error_not_unknown(server):
    with socket.socket() as probe:  # a port on 127.0.0.1 that nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    tool = http_tool(server, port=closed_port, request={"method": "POST", "body": {}})

    error = await failure(tool)

    assert error.code == "upstream_error"
    assert "ConnectError" in (error.detail or "")


async def test_through_the_registry_the_tools_own_timeout_wins(server, ctx):
    """The registry's backstop is longer, so a write still ends as outcome_unknown."""
    server.route("/x", hang)
    tool = http_tool(server, timeout_s=SENT_TIMEOUT_S, request={"method": "POST", "body": {}})
    registry = ToolRegistry(default_timeout_s=0.1)
    registry.register(tool)

    with pytest.raises(ToolError) as caught:
        await registry.execute(tool, {}, ctx)

    assert caught.value.code == "outcome_unknown"


@pytest.mark.parametrize(
    ("params", "args", "words"),
    [
        ({"m": "{arguments.many}"}, {"many": list(range(51))}, "51 query parameters, over 50"),
        ({"q": "{arguments.q}"}, {"q": "é" * 700}, "over 4,096"),
        ({"m": "{arguments.many}"}, {"many": [{"a": 1}]}, "cannot hold an object"),
        ({"m": "{arguments.many}"}, {"many": [[1]]}, "nested list"),
    ],
)
async def test_params_over_the_limits_are_invalid_args_and_nothing_is_sent(
    server, params, args, words
):
    tool = http_tool(server, request={"params": params})

    error = await failure(tool, args)

    assert error.code == "invalid_args"
    assert words in (error.detail or "")
    assert server.requests == []


@pytest.mark.parametrize("value", ["..", ".", ""])
async def test_path_values_cannot_climb_or_vanish(server, value):
    tool = http_tool(server, path="/items/{arguments.id}")

    error = await failure(tool, {"id": value})

    assert error.code == "invalid_args"
    assert server.requests == []


async def test_a_missing_path_argument_is_invalid_args(server):
    error = await failure(http_tool(server, path="/items/{arguments.id}"), {})

    assert (error.code, "'id'" in (error.detail or "")) == ("invalid_args", True)


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (b"[" * 50_000 + b"]" * 50_000, "nested too deeply"),
        (b'{"n": 1' + b"0" * 4_999 + b"}", "too long to read"),
    ],
)
async def test_an_answer_json_cannot_read_says_why_in_words(server, body, words):
    server.route("/x", lambda request: _reply(Reply(body=body)))

    error = await failure(http_tool(server))

    assert error.code == "invalid_output"
    assert words in (error.detail or "")
    assert "recursion" not in (error.detail or "") and "4300" not in (error.detail or "")
