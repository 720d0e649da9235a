"""How Interlock reaches a remote MCP server: the connection's credentials on every HTTP request
(and a count of 401 answers), the Streamable HTTP transport, reading every page of its tools,
and a sentence for why a server could not be reached."""

from __future__ import annotations

from collections.abc import AsyncIterator, Generator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import anyio
import httpcore2
import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from interlock.adapters.net_guard import DestinationRefused, allowed_host_set, connect_checked
from interlock.mcp_bridge.names import visible
from interlock.settings import Connection

MAX_REASON_CHARS = 200
"""Longest part of a remote error message repeated in why a server is down."""
CONNECT_TIMEOUT_S = 10.0
"""Longest wait for a TCP/TLS connection to a remote MCP server, in seconds."""


class SessionLost(Exception):
    """The session with a remote server ended under Interlock (its message says how)."""


class TokenFileUnreadable(Exception):
    """A connection's ``token_file`` is missing or cannot be read (its message says which)."""


class ConnectionAuth(httpx2.Auth):
    """A connection's headers and bearer token on every request; counts 401 answers.

    Args:
        connection: The named connection, or None (no credentials).
        name: Its name, for messages.
    """

    def __init__(self, connection: Connection | None, name: str | None) -> None:
        self.connection = connection
        self.name = name
        self.rejections = 0
        self._token: str | None = None

    async def load(self) -> None:
        """Read ``token_file`` (in a worker thread); no file means no bearer token."""
        path = self.connection.token_file if self.connection is not None else None
        if path is not None:
            self._token = await anyio.to_thread.run_sync(_read_token, path, self.name)

    def auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response]:
        if self.connection is not None:
            for header, value in self.connection.headers.items():
                request.headers[header] = value.get_secret_value()
        if self._token:
            request.headers["Authorization"] = f"Bearer {self._token}"
        response = yield request
        if response.status_code == 401:
            self.rejections += 1


def _read_token(path: Path, name: str | None) -> str:
    """Read a token file.

    Raises:
        TokenFileUnreadable: It is missing or cannot be read, in words naming the file.
    """
    try:
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        said = "is missing"
    except (OSError, UnicodeDecodeError) as exc:
        said = f"cannot be read ({getattr(exc, 'strerror', None) or exc})"
    raise TokenFileUnreadable(f"the token file of connection '{name}' {said}: {path}")


def url_with_params(url: str, connection: Connection | None) -> str:
    if connection is None or not connection.params:
        return url
    parts = urlsplit(url)
    extra = urlencode({k: v.get_secret_value() for k, v in connection.params.items()})
    query = f"{parts.query}&{extra}" if parts.query else extra
    return urlunsplit(parts._replace(query=query))


def describe(exc: BaseException, *, command: bool = False) -> str:
    """A sentence for why a server could not be reached or a session ended.

    Args:
        exc: What ended the try.
        command: True for a server Interlock starts (a ``command``), False for one at a URL:
            the words name what the person configured (its command, its address).
    """
    leaves: list[BaseException] = [exc]
    while len(leaves) == 1 and isinstance(leaves[0], BaseExceptionGroup):
        leaves = list(leaves[0].exceptions)
    first = leaves[0]
    if isinstance(first, SessionLost | TokenFileUnreadable):
        return str(first)
    if isinstance(first, DestinationRefused):
        return f"Interlock may not connect to {first.host}: {first.reason}"
    if isinstance(first, httpx2.ConnectError):
        return "nothing answers at its address (connection refused or no route)"
    if isinstance(first, httpx2.TimeoutException):
        return "it did not answer in time"
    if isinstance(first, httpx2.RemoteProtocolError | anyio.EndOfStream):
        return "its process closed its output" if command else "it closed the connection"
    if isinstance(first, FileNotFoundError):
        what = "its command cannot be started" if command else "a file it needs is missing"
        return f"{what}: {first.strerror or first} ({first.filename})"
    if isinstance(first, MCPError):
        said = _first_line(first.message)
        if first.code == types.REQUEST_TIMEOUT:
            return f"it did not answer in time ({said})"
        if "parse JSON" in first.message or "validation error" in first.message:
            return "it answered with something that is not MCP (not valid JSON-RPC)"
        return f"it answered with an error: {said}"
    text = _first_line(str(first))
    return f"{type(first).__name__}: {text}" if text else type(first).__name__


def _first_line(text: str) -> str:
    """The first line of a message that may come from the remote server, shown safely."""
    return visible(text.strip().split("\n", 1)[0], MAX_REASON_CHARS)


class GuardedBackend(httpcore2.AsyncNetworkBackend):
    """Connects only to public addresses, checked where it connects (the ``http_json`` policy
    of :mod:`interlock.adapters.net_guard`: resolve once, refuse when any address is not
    globally routable, connect to a checked address; no DNS rebinding in between).

    Args:
        allowed_hosts: Host names exempt from the check (the test-only ``http_allowed_hosts``).
    """

    def __init__(self, allowed_hosts: Iterable[str]) -> None:
        self._allowed = allowed_host_set(allowed_hosts)
        self._inner = httpcore2.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore interface)
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        """Resolve and check ``host``, then connect to its first reachable address.

        Raises:
            DestinationRefused: An address is not public. DestinationUnresolved: No address.
            httpcore2.ConnectError: No checked address accepts the connection.
        """
        _address, stream = await connect_checked(
            host,
            port,
            self._allowed,
            lambda address: self._inner.connect_tcp(
                address,
                port,
                timeout=timeout,
                local_address=local_address,
                socket_options=socket_options,
            ),
            httpcore2.ConnectError,
        )
        return stream

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore interface)
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        """Refuse: Unix sockets are never used.

        Raises:
            DestinationRefused: Always.
        """
        raise DestinationRefused(path, "Unix sockets are not allowed")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


@asynccontextmanager
async def http_transport(
    url: str, auth: ConnectionAuth, guard: tuple[str, ...] | None = None
) -> AsyncIterator[Any]:
    """The Streamable HTTP transport to ``url`` over a client of its own (closed after).

    Args:
        url: The server's endpoint.
        auth: Its credentials.
        guard: None: any address (a server of the settings). A tuple: public addresses only
            (a server added through the admin API), except these host names (test-only
            ``http_allowed_hosts``); no proxies from the environment.
    """
    timeout = httpx2.Timeout(CONNECT_TIMEOUT_S, read=300.0)
    if guard is None:
        http = httpx2.AsyncClient(auth=auth, timeout=timeout)
    else:
        transport = httpx2.AsyncHTTPTransport(trust_env=False, retries=0)
        # httpx2 has no public way to give its transport a network backend (as httpx 0.28,
        # see net_guard.guarded_client): its pool is replaced by one built with the public API.
        transport._pool = httpcore2.AsyncConnectionPool(
            ssl_context=transport._pool._ssl_context,
            network_backend=GuardedBackend(guard),
        )
        http = httpx2.AsyncClient(auth=auth, timeout=timeout, transport=transport, trust_env=False)
    async with http, streamable_http_client(url, http_client=http) as streams:
        yield streams


MAX_PAGES = 100
"""Most ``tools/list`` pages read from one server (a server that pages forever is down)."""
MAX_TOOLS = 1000
"""Most tools read from one server (a server listing more is down, with that reason)."""


async def list_all_tools(client: Client) -> list[types.Tool]:
    """Read every page of ``tools/list``.

    Raises:
        RuntimeError: When the server repeats a cursor or sends more than :data:`MAX_PAGES`
            pages or :data:`MAX_TOOLS` tools.
    """
    tools: list[types.Tool] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _ in range(MAX_PAGES):
        page = await client.list_tools(cursor=cursor)
        tools.extend(page.tools)
        if len(tools) > MAX_TOOLS:
            raise RuntimeError(f"it lists more than {MAX_TOOLS:,} tools (Interlock reads no more)")
        cursor = page.next_cursor
        if not cursor:
            return tools
        if cursor in seen:
            raise RuntimeError("its tool list repeats a page cursor")
        seen.add(cursor)
    raise RuntimeError(f"its tool list has more than {MAX_PAGES} pages")
