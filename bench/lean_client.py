"""A lean HTTP/1.1 + SSE client for the concurrent loads of (c) and (d), on asyncio streams.

The loads keep hundreds of streams open and many conversations cycling on a 2-core machine
that also runs the servers and PostgreSQL: the load generator's own CPU is taken from the
servers. httpx (with httpcore, anyio, h11) spends most of its time in the general machinery
a benchmark does not need (and its pool rescans every connection per request: with hundreds
of open streams in one pool that dominates). This client does only what the loads use:
keep-alive connections to one server (a plain stack of idle ones), ``Content-Length`` and
chunked bodies, and ``text/event-stream`` parsed straight from the chunks.

It checks as much as :class:`client.InterlockClient` does: every response's status (and JSON
body), every event's ``id:`` (the sequence the delivery check uses), type and JSON data.
Same calls and same :class:`client.EventStream` surface (``next``, ``until``, ``received``).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from client import EVENT_TIMEOUT_S, TERMINAL, Frame

_HEAD_END = b"\r\n\r\n"
_EVENT_END = re.compile(rb"\r\n\r\n|\n\n")
_LINE = re.compile(rb"\r\n|\n|\r")


class HttpError(RuntimeError):
    """The server answered something a cycle cannot go on with (or the connection broke)."""


class _Response:
    __slots__ = ("body", "status")

    def __init__(self, status: int, body: bytes) -> None:
        self.status = status
        self.body = body

    def json(self) -> Any:
        return json.loads(self.body)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


class _Connection:
    __slots__ = ("reader", "used", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.used = False

    @property
    def reusable(self) -> bool:
        return not (self.reader.at_eof() or self.writer.is_closing())

    def close(self) -> None:
        self.writer.close()


async def _read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    """Read the status line and headers; return the status and the headers (lower-case names)."""
    head = await reader.readuntil(_HEAD_END)
    lines = head[:-4].decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise HttpError(f"not an HTTP/1.x response: {lines[0]!r}")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(parts[1]), headers


async def _read_chunk(reader: asyncio.StreamReader) -> bytes:
    """Read one chunk of a chunked body (``b""`` for the last one, trailers consumed)."""
    size_line = await reader.readuntil(b"\r\n")
    size = int(size_line.split(b";", 1)[0], 16)
    if size == 0:
        while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers, then the blank line
            pass
        return b""
    data = await reader.readexactly(size + 2)
    if data[-2:] != b"\r\n":
        raise HttpError("malformed chunk")
    return data[:-2]


class LeanClient:
    """The calls of a HITL cycle against one server, on keep-alive connections.

    Args:
        base_url: ``http://127.0.0.1:<port>``.
        max_connections: Most request connections open at once (streams have their own).
    """

    def __init__(self, base_url: str, max_connections: int = 16) -> None:
        parts = urlsplit(base_url)
        if parts.scheme != "http" or parts.hostname is None or parts.port is None:
            raise ValueError(f"expected http://host:port, got {base_url}")
        self.base_url = base_url
        self._host, self._port = parts.hostname, parts.port
        self._host_header = f"{self._host}:{self._port}".encode()
        self._idle: list[_Connection] = []
        self._slots = asyncio.Semaphore(max_connections)
        self._streams: set[EventStream] = set()

    async def aclose(self) -> None:
        for stream in tuple(self._streams):
            await stream.__aexit__(None, None, None)
        while self._idle:
            self._idle.pop().close()

    async def open_connection(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection(self._host, self._port, limit=1 << 20)

    def request_head(self, method: str, path: str, headers: bytes, length: int | None) -> bytes:
        """The request line and headers of a request (``length`` of its body, if any)."""
        head = b"%s %s HTTP/1.1\r\nHost: %s\r\n" % (
            method.encode(),
            path.encode(),
            self._host_header,
        )
        if length is not None:
            head += b"Content-Type: application/json\r\nContent-Length: %d\r\n" % length
        return head + headers + b"\r\n"

    async def request(self, method: str, path: str, body: Any = None) -> _Response:
        """Send one request with a JSON ``body`` (or none); return the whole response.

        A kept-alive connection the server closed while idle is replaced once, when nothing
        of the answer had arrived.

        Raises:
            HttpError: The connection broke, or the answer is not HTTP/1.x.
            TimeoutError: No whole answer within :data:`client.EVENT_TIMEOUT_S`.
        """
        payload = b"" if body is None else json.dumps(body).encode()
        message = self.request_head(method, path, b"", len(payload) if body is not None else None)
        message += payload
        async with self._slots, asyncio.timeout(EVENT_TIMEOUT_S):
            for attempt in range(2):
                connection = await self._connection()
                reused = connection.used
                try:
                    connection.writer.write(message)
                    status, headers = await _read_head(connection.reader)
                except (OSError, asyncio.IncompleteReadError) as exc:
                    connection.close()
                    if reused and attempt == 0:
                        continue
                    raise HttpError(f"{method} {path}: connection broke ({exc!r})") from exc
                try:
                    response = _Response(status, await self._read_body(connection, headers))
                except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
                    connection.close()
                    raise HttpError(f"{method} {path}: body cut ({exc!r})") from exc
                if headers.get("connection", "").lower() == "close":
                    connection.close()
                else:
                    connection.used = True
                    self._idle.append(connection)
                return response
        raise AssertionError("unreachable")

    async def _connection(self) -> _Connection:
        while self._idle:
            connection = self._idle.pop()
            if connection.reusable:
                return connection
            connection.close()
        return _Connection(*await self.open_connection())

    @staticmethod
    async def _read_body(connection: _Connection, headers: dict[str, str]) -> bytes:
        reader = connection.reader
        if headers.get("transfer-encoding", "").lower() == "chunked":
            parts = []
            while chunk := await _read_chunk(reader):
                parts.append(chunk)
            return b"".join(parts)
        return await reader.readexactly(int(headers.get("content-length", "0")))

    # -- the calls of a cycle (as client.InterlockClient) ------------------------------------------
    async def new_conversation(self) -> str:
        response = await self.request("POST", "/api/conversations", {})
        if response.status != 201 and response.status != 200:
            raise HttpError(f"conversation refused: {response.status} {response.text}")
        return str(response.json()["id"])

    async def say(self, conversation_id: str, content: str) -> int:
        """Post a message; return its id."""
        response = await self.request(
            "POST", f"/api/conversations/{conversation_id}/messages", {"content": content}
        )
        if response.status != 202:
            raise HttpError(f"message refused: {response.status} {response.text}")
        return int(response.json()["message_id"])

    async def conversation(self, conversation_id: str) -> dict[str, Any]:
        """``GET /api/conversations/{id}`` (ConversationDetail)."""
        response = await self.request("GET", f"/api/conversations/{conversation_id}")
        if response.status != 200:
            raise HttpError(f"conversation unreadable: {response.status} {response.text}")
        result: dict[str, Any] = response.json()
        return result

    async def approve(self, tool_call_id: str) -> None:
        response = await self.request(
            "POST", f"/api/tool-calls/{tool_call_id}/decision", {"type": "approve"}
        )
        if response.status != 200:
            raise HttpError(f"decision refused: {response.status} {response.text}")
        response.json()  # a whole JSON answer

    def events(self, conversation_id: str, after_seq: int = 0) -> EventStream:
        return EventStream(self, conversation_id, after_seq)


class EventStream:
    """An open ``GET /api/conversations/{id}/events`` on a connection of its own.

    A background task parses the chunks as they arrive and stamps each frame
    (``time.perf_counter()``) as soon as its blank line is parsed.
    """

    def __init__(self, client: LeanClient, conversation_id: str, after_seq: int = 0) -> None:
        self._client = client
        self._conversation_id = conversation_id
        self._after_seq = after_seq
        self._queue: asyncio.Queue[Frame | BaseException] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._opened = asyncio.Event()
        self.last_seq = after_seq
        self.received: list[int] = []
        """Every seq the reader parsed, in arrival order (for the delivered-once checks)."""
        self.ended: BaseException | None = None
        """Why the stream ended (None while open)."""

    async def __aenter__(self) -> EventStream:
        self._client._streams.add(self)
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
        self._client._streams.discard(self)
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    async def _read(self) -> None:
        writer: asyncio.StreamWriter | None = None
        try:
            reader, writer = await self._client.open_connection()
            extra = b"Accept: text/event-stream\r\n"
            if self._after_seq:
                extra += b"Last-Event-ID: %d\r\n" % self._after_seq
            path = f"/api/conversations/{self._conversation_id}/events"
            writer.write(self._client.request_head("GET", path, extra, None))
            status, headers = await _read_head(reader)
            if status != 200:
                raise HttpError(f"event stream refused: {status}")
            if headers.get("transfer-encoding", "").lower() != "chunked":
                raise HttpError("event stream not chunked")
            self._opened.set()
            buffer = b""
            while chunk := await _read_chunk(reader):
                buffer += chunk
                start = 0
                while match := _EVENT_END.search(buffer, start):
                    self._event(buffer[start : match.start()])
                    start = match.end()
                buffer = buffer[start:]
            raise HttpError("the server closed the event stream")
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            self.ended = exc
            self._opened.set()
            self._queue.put_nowait(exc)
        finally:
            if writer is not None:
                writer.close()

    def _event(self, block: bytes) -> None:
        """Parse one event (the lines before a blank line) and queue its frame."""
        seq, type_, data = -1, "", []
        for line in _LINE.split(block):
            name, _, value = line.partition(b":")
            if value[:1] == b" ":
                value = value[1:]
            if name == b"data":
                data.append(value)
            elif name == b"id":
                seq = int(value)
            elif name == b"event":
                type_ = value.decode()
            # an empty name is a comment (": ping"); other fields are not sent
        if not data:
            return
        if seq < 0 or not type_:
            raise HttpError(f"an event without id or type: {block[:200]!r}")
        frame = Frame(seq, type_, json.loads(b"\n".join(data)), time.perf_counter())
        self.received.append(seq)
        self._queue.put_nowait(frame)

    @property
    def open(self) -> bool:
        """True while the reader runs (the server has not closed the stream)."""
        return self._task is not None and not self._task.done() and self.ended is None

    async def next(self) -> Frame:
        """Return the next frame (at most :data:`client.EVENT_TIMEOUT_S` seconds)."""
        async with asyncio.timeout(EVENT_TIMEOUT_S):
            item = await self._queue.get()
        if isinstance(item, BaseException):
            raise RuntimeError("the event stream ended") from item
        self.last_seq = item.seq
        return item

    async def until(self, *types: str) -> list[Frame]:
        """Read frames up to and including the first one whose type is in ``types``."""
        frames: list[Frame] = []
        while True:
            frame = await self.next()
            frames.append(frame)
            if frame.type in types:
                return frames
            if frame.type in TERMINAL:
                raise RuntimeError(
                    f"expected {types}, the run ended with {frame.type}: {frame.data}"
                )
