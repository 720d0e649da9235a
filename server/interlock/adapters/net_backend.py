"""The httpcore network backend of the SSRF guard (:mod:`~interlock.adapters.net_guard`).

In a module of its own so that httpcore is imported with the first guarded client, not at
every start: :func:`~interlock.adapters.net_guard.guarded_client` imports it.
"""

from __future__ import annotations

import ssl
from collections.abc import Iterable
from typing import Any

import httpcore

from interlock.adapters.net_guard import DestinationRefused, allowed_host_set, connect_checked

__all__ = ["GuardedNetworkBackend"]


class GuardedNetworkBackend(httpcore.AsyncNetworkBackend):
    """An httpcore backend that connects only to checked addresses; one per tool call.

    Args:
        allowed_hosts: Host names exempt from the address check (test-only).
        inner: The backend that opens sockets (``httpcore.AnyIOBackend()`` by default); it is
            only ever given address literals.

    Attributes:
        request_sent: True once any byte of a request was written to a connection (after TLS
            set-up): from then on the server may have acted on the request.
        connected_to: The addresses connected to, in order (for logs and tests).
    """

    def __init__(
        self, allowed_hosts: Iterable[str] = (), inner: httpcore.AsyncNetworkBackend | None = None
    ) -> None:
        self._allowed = allowed_host_set(allowed_hosts)
        self._inner = inner if inner is not None else httpcore.AnyIOBackend()
        self.request_sent = False
        self.connected_to: list[str] = []

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore interface)
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Resolve and check ``host``, then connect to its first reachable checked address.

        Raises:
            DestinationRefused: See :func:`checked_addresses`.
            DestinationUnresolved: See :func:`checked_addresses`.
            httpcore.ConnectError: When no checked address accepts the connection.
            httpcore.ConnectTimeout: When connecting takes longer than ``timeout`` seconds.
        """
        address, stream = await connect_checked(
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
            httpcore.ConnectError,
        )
        self.connected_to.append(address)
        return _TrackingStream(stream, self)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore interface)
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        """Refuse: outbound HTTP never uses Unix sockets.

        Raises:
            DestinationRefused: Always.
        """
        raise DestinationRefused(path, "Unix sockets are not allowed")

    async def sleep(self, seconds: float) -> None:
        """Sleep with the inner backend (httpcore's retry back-off; retries are off)."""
        await self._inner.sleep(seconds)


class _TrackingStream(httpcore.AsyncNetworkStream):
    """A stream that marks its backend's ``request_sent`` before writing anything."""

    def __init__(self, stream: httpcore.AsyncNetworkStream, owner: GuardedNetworkBackend) -> None:
        self._stream = stream
        self._owner = owner

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:  # noqa: ASYNC109
        return await self._stream.read(max_bytes, timeout=timeout)

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:  # noqa: ASYNC109
        if buffer:
            self._owner.request_sent = True
        await self._stream.write(buffer, timeout=timeout)

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore interface)
    ) -> httpcore.AsyncNetworkStream:
        tls = await self._stream.start_tls(
            ssl_context, server_hostname=server_hostname, timeout=timeout
        )
        return _TrackingStream(tls, self._owner)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)
