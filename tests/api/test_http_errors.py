"""HTTP-level answers: unknown routes, wrong methods and slow bodies get the JSON error shape.

* 404 for an unknown route and 405 for a wrong method answer ``{"error": {"code",
  "message"}}`` (an unknown path under ``/api/`` is 404 for every method, even with the web
  client's static files mounted at ``/``); a 405 lists every method the path accepts in ``Allow`` (all its routes, not
  only the first one Starlette found);
* a request body must arrive whole within ``request_body_timeout_s``: a client that stops
  half-way gets 408 ``request_timeout`` (JSON, connection closed) and nothing is stored,
  while an event stream (no body) stays open past that time.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from interlock.settings import Settings
from interlock.storage.migrate import upgrade
from support.live import LiveServer, live_server

BODY_TIMEOUT_S = 0.5


@pytest.fixture
async def quick_server(tmp_path: Path) -> AsyncIterator[LiveServer]:
    """A live server on SQLite (no storage is involved) with a short body timeout."""
    url = f"sqlite:///{tmp_path / 'interlock.db'}"
    upgrade(url)
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=url,
        client_dist=tmp_path / "no-client",
        request_body_timeout_s=BODY_TIMEOUT_S,
        ping_interval_s=BODY_TIMEOUT_S * 3,
    )
    async with live_server(settings) as live:
        yield live


@pytest.fixture
async def client_served(tmp_path: Path) -> AsyncIterator[LiveServer]:
    """A live server on SQLite that serves a web client (a one-page ``dist``) at ``/``."""
    dist = tmp_path / "dist"
    dist.mkdir()
    (dist / "index.html").write_text("<!doctype html><title>Interlock</title>", encoding="utf-8")
    url = f"sqlite:///{tmp_path / 'interlock.db'}"
    upgrade(url)
    settings = Settings(_env_file=None, database_url=url, client_dist=dist)  # type: ignore[call-arg]
    async with live_server(settings) as live:
        yield live


def _error(response: httpx.Response, status: int) -> dict[str, str]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert set(body) == {"error"} and {"code", "message"} <= set(body["error"]), body
    return dict(body["error"])


async def test_unknown_routes_answer_404_in_the_json_error_shape(quick_server: LiveServer) -> None:
    for path in ("/api/nope", "/api/conversations/x/nope", "/nothing-here"):
        error = _error(await quick_server.client.get(path), 404)
        assert error["code"] == "not_found"
        assert error["message"] == f"Nothing is at {path}."


async def test_405_lists_every_method_the_path_accepts(quick_server: LiveServer) -> None:
    cases = [
        ("PUT", "/api/conversations", "GET, HEAD, POST"),
        ("POST", "/api/conversations/conv_x", "GET, HEAD, PATCH, DELETE"),
        ("DELETE", "/api/health", "GET, HEAD"),
        ("GET", "/api/tool-calls/call_x/decision", "POST"),
    ]
    for method, path, allow in cases:
        response = await quick_server.client.request(method, path)
        error = _error(response, 405)
        assert error["code"] == "method_not_allowed"
        assert response.headers["allow"] == allow, (method, path)
        assert error["message"] == f"{path} does not accept {method}; it accepts {allow}."


async def _raw_request(server: LiveServer, head: bytes, body: bytes) -> bytes:
    """Send ``head`` + ``body`` and read the whole answer (the server closes the connection)."""
    port = int(server.url.rsplit(":", 1)[1])
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(head + body)
        await writer.drain()
        async with asyncio.timeout(BODY_TIMEOUT_S + 10):
            return await reader.read()  # until EOF: the connection is closed after the answer
    finally:
        writer.close()


async def test_a_body_that_stops_arriving_gets_408_and_nothing_is_stored(
    quick_server: LiveServer,
) -> None:
    conversation_id = await quick_server.new_conversation()
    body = b'{"content": "hello from a slow client"}'
    head = (
        f"POST /api/conversations/{conversation_id}/messages HTTP/1.1\r\n"
        f"Host: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    answer = await _raw_request(quick_server, head, body[:10])  # the rest never comes
    status_line, _, rest = answer.partition(b"\r\n")
    assert status_line == b"HTTP/1.1 408 Request Timeout", answer
    headers, _, payload = rest.partition(b"\r\n\r\n")
    assert b"connection: close" in headers.lower()
    assert payload.startswith(b'{"error": {"code": "request_timeout"'), payload
    detail = (await quick_server.client.get(f"/api/conversations/{conversation_id}")).json()
    assert detail["messages"] == []

    # The same request sent whole is fine.
    response = await quick_server.client.post(
        f"/api/conversations/{conversation_id}/messages",
        content=body,
        headers={"content-type": "application/json"},
    )
    assert response.status_code == 202, response.text


async def test_an_event_stream_outlives_the_body_timeout(quick_server: LiveServer) -> None:
    conversation_id = await quick_server.new_conversation()
    url = f"/api/conversations/{conversation_id}/events"
    async with quick_server.client.stream("GET", url) as response:
        assert response.status_code == 200
        lines = response.aiter_lines()
        async with asyncio.timeout(30):
            # The first ping comes after 3x the body timeout: the stream is still open then.
            async for line in lines:
                if line.startswith(": ping"):
                    break
            await quick_server.say(conversation_id, "hello")
            async for line in lines:
                if line.startswith("event: run.started"):
                    break


async def test_an_unknown_api_path_is_404_for_every_method_with_the_web_client_served(
    client_served: LiveServer,
) -> None:
    # The web client's static mount answers any path; under /api/ it must not turn a POST
    # to a route that does not exist into "405, accepts GET, HEAD".
    for method, path in [
        ("POST", "/api/nope"),
        ("POST", "/api/tool-calls/call_x/rewind"),
        ("DELETE", "/api/conversations/conv_x/nope"),
    ]:
        error = _error(await client_served.client.request(method, path), 404)
        assert error["code"] == "not_found"
        assert error["message"] == f"Nothing is at {path}."
    # A real route's wrong method still says what it accepts.
    error = _error(await client_served.client.request("PUT", "/api/conversations"), 405)
    assert error["code"] == "method_not_allowed"
    # The client itself is still served.
    page = await client_served.client.get("/")
    assert page.status_code == 200 and "Interlock" in page.text


async def test_head_on_an_api_route_that_takes_get_answers_its_headers_with_the_web_client_served(
    client_served: LiveServer,
) -> None:
    # RFC 9110 asks for HEAD wherever GET is served; the static mount used to answer HEAD
    # /api/health with "Nothing is at /api/health", and then the routes with 405.
    client = client_served.client
    health = await client.get("/api/health")
    head = await client.head("/api/health")
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == "application/json"
    assert head.headers["content-length"] == str(len(health.content))
    conversation_id = (await client.post("/api/conversations", json={})).json()["id"]
    for path in ("/api/conversations", f"/api/conversations/{conversation_id}"):
        response = await client.head(path)
        assert (response.status_code, response.content) == (200, b""), path
    # A stream's headers, then the stream ends (bounded: a stream that went on would hang).
    async with asyncio.timeout(30):
        stream = await client.head(f"/api/conversations/{conversation_id}/events")
    assert stream.status_code == 200 and stream.content == b""
    assert stream.headers["content-type"].startswith("text/event-stream")
    # A route's own 404 is kept, without a body.
    missing = await client.head("/api/conversations/conv_x")
    assert (missing.status_code, missing.content) == (404, b"")


async def test_a_method_an_api_route_does_not_take_is_405_naming_get_and_head(
    client_served: LiveServer,
) -> None:
    client = client_served.client
    for method, path, allow in [
        ("HEAD", "/api/tool-calls/call_x/decision", "POST"),
        ("OPTIONS", "/api/health", "GET, HEAD"),
        ("PUT", "/api/conversations", "GET, HEAD, POST"),
    ]:
        response = await client.request(method, path)
        assert response.status_code == 405, (method, path, response.status_code)
        assert response.headers["allow"] == allow, (method, path)
    error = _error(await client.request("OPTIONS", "/api/health"), 405)
    assert error["message"] == "/api/health does not accept OPTIONS; it accepts GET, HEAD."
    # No route at all: 404 for HEAD too.
    nothing = await client.head("/api/nope")
    assert (nothing.status_code, nothing.content) == (404, b"")
