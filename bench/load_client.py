"""The benchmark's HTTP + SSE client: aiohttp for HTTP, :mod:`sse` for the streams.

Every part uses it: (a)'s sequential cycles, whose rate counts the client's time, and the
concurrent loads (c) to (e). The loads keep hundreds of streams open and many conversations
cycling on a 2-core machine that also runs the servers and PostgreSQL, so the load
generator's own CPU is taken from the servers: aiohttp (its C HTTP parser, a connection pool
that does not scan its connections per request) keeps it to a few ms per cycle. Requests go over one session
whose pool stays small (``max_connections``); event streams over another, each on a
connection of its own, so the hundreds of open streams never sit in the requests' pool.

It checks every response's status and JSON body, and every event's ``id:`` (the sequence
the delivery check uses), type and JSON data.
"""

from __future__ import annotations

import asyncio
import json
import time
from types import TracebackType
from typing import Any

import aiohttp

from client import EVENT_TIMEOUT_S, Frame, FrameReader
from sse import SseParser

# Headers aiohttp adds by default that the servers have no use for (they never compress):
# fewer bytes to write and to parse on both sides.
_SKIP_HEADERS = ("Accept-Encoding", "User-Agent")


class HttpError(RuntimeError):
    """The server answered something a cycle cannot go on with (or the stream broke)."""


class ConnectionLost(HttpError):
    """The connection broke or could not be made (the server is gone or killed)."""


class LoadClient:
    """The calls of a HITL cycle against one server.

    Create it inside the running event loop; :meth:`aclose` it when done.

    Args:
        base_url: ``http://127.0.0.1:<port>``.
        max_connections: Most request connections open at once (streams have their own).
    """

    def __init__(self, base_url: str, max_connections: int = 16) -> None:
        self.base_url = base_url
        self._requests = aiohttp.ClientSession(
            base_url,
            connector=aiohttp.TCPConnector(limit=max_connections),
            timeout=aiohttp.ClientTimeout(total=EVENT_TIMEOUT_S),
            skip_auto_headers=_SKIP_HEADERS,
            cookie_jar=aiohttp.DummyCookieJar(),
        )
        self._streams = aiohttp.ClientSession(
            base_url,
            connector=aiohttp.TCPConnector(limit=0),
            timeout=aiohttp.ClientTimeout(total=None, sock_connect=EVENT_TIMEOUT_S),
            skip_auto_headers=_SKIP_HEADERS,
            cookie_jar=aiohttp.DummyCookieJar(),
            auto_decompress=False,
        )
        self._open_streams: set[EventStream] = set()

    async def aclose(self) -> None:
        for stream in tuple(self._open_streams):
            await stream.__aexit__(None, None, None)
        await self._requests.close()
        await self._streams.close()

    async def send(self, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
        """Send one request with a JSON ``body`` (or none); return its status and raw body.

        Raises:
            ConnectionLost: The connection broke (:class:`aiohttp.ClientError`).
            TimeoutError: No whole answer within :data:`client.EVENT_TIMEOUT_S`.
        """
        try:
            async with self._requests.request(method, path, json=body) as response:
                return response.status, await response.read()
        except aiohttp.ClientError as exc:
            raise ConnectionLost(f"{method} {path}: {exc!r}") from exc

    async def request(self, method: str, path: str, expect: int, body: Any = None) -> Any:
        """Send one request with a JSON ``body`` (or none); return the answer's JSON.

        Raises:
            HttpError: The status is not ``expect``, the body is not JSON, or the connection
                broke (:class:`ConnectionLost`).
            TimeoutError: No whole answer within :data:`client.EVENT_TIMEOUT_S`.
        """
        status, raw = await self.send(method, path, body)
        if status != expect:
            text = raw[:500].decode("utf-8", "replace")
            raise HttpError(f"{method} {path}: {status} (expected {expect}) {text}")
        try:
            return json.loads(raw)
        except ValueError as exc:
            raise HttpError(f"{method} {path}: the answer is not JSON: {raw[:200]!r}") from exc

    async def new_conversation(self) -> str:
        return str((await self.request("POST", "/api/conversations", 201, {}))["id"])

    async def say(self, conversation_id: str, content: str) -> int:
        """Post a message; return its id."""
        path = f"/api/conversations/{conversation_id}/messages"
        return int((await self.request("POST", path, 202, {"content": content}))["message_id"])

    async def conversation(self, conversation_id: str) -> dict[str, Any]:
        """``GET /api/conversations/{id}`` (ConversationDetail)."""
        result: dict[str, Any] = await self.request(
            "GET", f"/api/conversations/{conversation_id}", 200
        )
        return result

    async def approve(self, tool_call_id: str) -> None:
        path = f"/api/tool-calls/{tool_call_id}/decision"
        await self.request("POST", path, 200, {"type": "approve"})

    def events(self, conversation_id: str, after_seq: int = 0) -> EventStream:
        return EventStream(self, conversation_id, after_seq)


class EventStream(FrameReader):
    """An open ``GET /api/conversations/{id}/events`` on a connection of its own.

    A background task parses the body as it arrives and stamps each frame
    (``time.perf_counter()``) as soon as its blank line is parsed. ``after_seq`` is sent as
    ``Last-Event-ID``.
    """

    def __init__(self, client: LoadClient, conversation_id: str, after_seq: int = 0) -> None:
        super().__init__(conversation_id, after_seq)
        self._client = client

    async def __aenter__(self) -> EventStream:
        self._client._open_streams.add(self)
        self._task = asyncio.create_task(self._read(), name=f"sse {self._conversation_id}")
        async with asyncio.timeout(EVENT_TIMEOUT_S):
            await self._opened.wait()
        if self.ended is not None:
            raise HttpError("the event stream did not open") from self.ended
        return self

    async def __aexit__(
        self,
        _type: type[BaseException] | None,
        _value: BaseException | None,
        _tb: TracebackType | None,
    ) -> None:
        self._client._open_streams.discard(self)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _read(self) -> None:
        headers = {"Accept": "text/event-stream"}
        if self._after_seq:
            headers["Last-Event-ID"] = str(self._after_seq)
        path = f"/api/conversations/{self._conversation_id}/events"
        try:
            async with self._client._streams.get(path, headers=headers) as response:
                if response.status != 200:
                    raise HttpError(f"event stream refused: {response.status}")
                self._opened.set()
                parser = SseParser()
                async for piece in response.content.iter_any():
                    for event in parser.feed(piece):
                        self._frame(event.id, event.type, event.data)
            raise HttpError("the server closed the event stream")
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            self._fail(exc)

    def _frame(self, seq: str | None, type_: str | None, data: str) -> None:
        """Check one event (an id, a type, JSON data) and queue its frame."""
        if seq is None or type_ is None:
            raise HttpError(f"an event without id or type: {type_} {seq} {data[:200]}")
        frame = Frame(int(seq), type_, json.loads(data), time.perf_counter())
        self.received.append(frame.seq)
        self._queue.put_nowait(frame)
