"""The SSRF guard of outbound HTTP: public HTTPS destinations only, checked where we connect.

Declarative ``http_json`` tools (docs/skills-and-employees.md, "Declarative tools") fetch URLs
that the model fills in, from inside Interlock's network. So that they cannot reach the
machine or its private network (cloud metadata at ``169.254.169.254``, a database on
``10.0.0.5``, Interlock itself on ``127.0.0.1``), every connection goes through
:class:`~interlock.adapters.net_backend.GuardedNetworkBackend`, an httpcore network backend
(in a module of its own, loaded with the first client) that

1. resolves the host name itself (``loop.getaddrinfo``, see :func:`resolve_host`),
2. refuses the destination when ANY resolved address is not globally routable
   (:func:`address_problem`), unless the host is in the test-only allowlist
   (``settings.http_allowed_hosts``), and
3. connects to one of the addresses it just checked, never resolving again (no DNS
   rebinding between check and connect). TLS still uses the host name: httpcore passes the
   URL's host as ``server_hostname`` (SNI and certificate verification) and httpx sends it in
   ``Host``.

:func:`guarded_client` builds the httpx client around it: no redirects, no proxies or other
settings from the environment, no retries. The backend also records whether any request bytes
were written (``GuardedNetworkBackend.request_sent``), so a failed write can be told apart
from one that may have reached the server.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import socket
import ssl
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import certifi

if TYPE_CHECKING:  # httpx and httpcore load with the first guarded client (see below)
    import httpx

    from interlock.adapters.net_backend import GuardedNetworkBackend

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64_PREFIX = ipaddress.IPv6Network("64:ff9b::/96")
"""RFC 6052 well-known NAT64 prefix: its last 32 bits are an IPv4 address."""
_UNIQUE_LOCAL = ipaddress.IPv6Network("fc00::/7")


class DestinationRefused(Exception):
    """A destination that outbound HTTP may not reach.

    Args:
        host: The host as written in the URL (a name or an address).
        reason: Why, e.g. ``"127.0.0.1 is loopback"``.
    """

    def __init__(self, host: str, reason: str) -> None:
        super().__init__(f"destination not allowed: {host} ({reason})")
        self.host = host
        self.reason = reason


class DestinationUnresolved(Exception):
    """A host name that does not resolve to any address."""


def address_problem(address: IPAddress) -> str | None:
    """Say why ``address`` may not be connected to, or None when it is globally routable.

    Refused: unspecified, loopback, link-local, multicast, private (RFC 1918, IPv6 unique
    local ``fc00::/7``), reserved, IPv6 site-local, and anything else Python's ``ipaddress``
    does not call ``is_global`` (shared ``100.64.0.0/10``, documentation ranges...). An IPv6
    address that carries an IPv4 address (IPv4-mapped ``::ffff:a.b.c.d``, NAT64
    ``64:ff9b::/96``, 6to4 ``2002::/16``, Teredo) is refused when the IPv4 address is.

    Args:
        address: An IPv4 or IPv6 address.

    Returns:
        ``None`` for a public address, else a phrase completing "<address> is ...", such as
        ``"a loopback address"``.
    """
    if isinstance(address, ipaddress.IPv6Address):
        embedded = [address.ipv4_mapped, address.sixtofour]
        if address.teredo is not None:
            embedded.append(address.teredo[1])
        if address in _NAT64_PREFIX:
            embedded.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
        for inner in embedded:
            if inner is not None and (problem := address_problem(inner)) is not None:
                return f"an IPv6 address carrying {inner}, {problem}"
    checks = [
        ("is_unspecified", "an unspecified address"),
        ("is_loopback", "a loopback address"),
        ("is_link_local", "a link-local address"),
        ("is_multicast", "a multicast address"),
        ("is_site_local", "a site-local address"),
        ("is_reserved", "a reserved address"),
        ("is_private", "a private address"),
    ]
    for attr, label in checks:
        if getattr(address, attr, False):
            if label == "a private address" and address in _UNIQUE_LOCAL:
                return "a unique-local address"
            return label
    if not address.is_global:
        return "not globally routable"
    return None


async def resolve_host(host: str, port: int) -> list[str]:
    """Resolve ``host`` to TCP addresses with the event loop's ``getaddrinfo``.

    Module-level so tests can replace it. An address literal resolves to itself without any
    network traffic.

    Args:
        host: A host name or address literal (IPv6 without brackets).
        port: TCP port.

    Returns:
        Distinct address strings, in resolver order (IPv6 may carry a ``%scope``).

    Raises:
        DestinationUnresolved: When resolution fails or yields nothing.
    """
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP
        )
    except (OSError, UnicodeError) as exc:
        raise DestinationUnresolved(f"cannot resolve {host}: {exc}") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in infos))
    if not addresses:
        raise DestinationUnresolved(f"cannot resolve {host}: no addresses")
    return addresses


async def checked_addresses(host: str, port: int, allowed_hosts: frozenset[str]) -> list[str]:
    """Resolve ``host`` and check every address (see the module docstring).

    Args:
        host: Host from the URL (lowercase ASCII, IPv6 without brackets).
        port: TCP port.
        allowed_hosts: Lowercase host names exempt from the address check (test-only setting
            ``http_allowed_hosts``).

    Returns:
        The addresses to connect to, all checked.

    Raises:
        DestinationRefused: When any resolved address is not globally routable.
        DestinationUnresolved: When the name does not resolve.
    """
    addresses = await resolve_host(host, port)
    if _normal_host(host) in allowed_hosts:
        return addresses
    for text in addresses:
        try:
            address = ipaddress.ip_address(text)
        except ValueError:
            raise DestinationRefused(host, f"resolved to an unreadable address {text!r}") from None
        problem = address_problem(address)
        if problem is not None:
            reason = problem if text == host else f"resolves to {text}, {problem}"
            raise DestinationRefused(host, reason)
    return addresses


StreamT = TypeVar("StreamT")


async def connect_checked(
    host: str,
    port: int,
    allowed_hosts: frozenset[str],
    connect: Callable[[str], Awaitable[StreamT]],
    connect_error: type[Exception],
) -> tuple[str, StreamT]:
    """The guard of a network backend's ``connect_tcp`` (any httpcore flavour): resolve and
    check ``host`` (:func:`checked_addresses`), then connect to the first checked address that
    accepts.

    Args:
        host: Host from the URL. port: TCP port.
        allowed_hosts: Host names exempt from the check (:func:`allowed_host_set`).
        connect: Connects to one address (the inner backend's ``connect_tcp``).
        connect_error: What ``connect`` raises when an address refuses (then the next is tried).

    Returns:
        ``(address, stream)``: the address connected to and the stream.

    Raises:
        DestinationRefused: See :func:`checked_addresses`.
        DestinationUnresolved: See :func:`checked_addresses`.
        Exception: The last ``connect_error`` when no checked address accepts.
    """
    error: Exception | None = None
    for address in await checked_addresses(host, port, allowed_hosts):
        try:
            return address, await connect(address)
        except connect_error as exc:
            error = exc
    assert error is not None  # checked_addresses never returns an empty list
    raise error


def allowed_host_set(hosts: Iterable[str]) -> frozenset[str]:
    """The host names exempt from the check, as :func:`checked_addresses` compares them."""
    return frozenset(_normal_host(h) for h in hosts)


def _normal_host(host: str) -> str:
    return host.strip().lower().rstrip(".").removeprefix("[").removesuffix("]")


@functools.lru_cache(maxsize=4)
def ssl_context(ca_bundle: Path | None = None) -> ssl.SSLContext:
    """Return the TLS client context: ``certifi``'s CAs, or only ``ca_bundle``'s (test-only).

    Hostname checking and certificate verification are always on. Contexts are cached per
    bundle path (the file is read once).

    Args:
        ca_bundle: A PEM file of trusted CA certificates (setting ``http_ca_bundle``), or None.

    Returns:
        An ``ssl.SSLContext`` for clients.
    """
    cafile = str(ca_bundle) if ca_bundle is not None else certifi.where()
    return ssl.create_default_context(cafile=cafile)


def guarded_client(
    *, allowed_hosts: Iterable[str], ca_bundle: Path | None, timeout_s: float
) -> tuple[httpx.AsyncClient, GuardedNetworkBackend]:
    """Build an httpx client whose connections all go through a fresh guarded backend.

    The client follows no redirects, ignores the environment (``trust_env=False``: no
    ``HTTPS_PROXY``, which would bypass the guard, no ``SSL_CERT_FILE``, no ``.netrc``),
    never retries, speaks HTTP/1.1 and refuses any URL that is not ``https``. httpx 0.28 has
    no public way to give its transport a network backend, so the transport's connection pool
    (``AsyncHTTPTransport._pool``) is replaced by one built with httpcore's public API; the
    tests prove the guard is in the path (a loopback destination is refused).

    Args:
        allowed_hosts: Host names exempt from the address check (test-only).
        ca_bundle: See :func:`ssl_context`.
        timeout_s: httpx timeout for connect, read, write and pool waits, in seconds.

    Returns:
        ``(client, backend)``: use the client as an async context manager, one per call, and
        read ``backend.request_sent`` after a failure.
    """
    # Imported here, not at the top: httpcore (and h11) are 37 modules, about 25,000 Python
    # calls of every start (issue 7, benchmark f), used only by declarative http_json tools.
    import httpcore
    import httpx

    from interlock.adapters.net_backend import GuardedNetworkBackend

    context = ssl_context(ca_bundle)
    backend = GuardedNetworkBackend(allowed_hosts)
    transport = httpx.AsyncHTTPTransport(verify=context, trust_env=False, retries=0)
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=context,
        max_connections=1,
        http1=True,
        http2=False,
        retries=0,
        network_backend=backend,
    )

    async def https_only(request: httpx.Request) -> None:
        if request.url.scheme != "https":
            raise DestinationRefused(str(request.url.host), "only https:// URLs are allowed")

    client = httpx.AsyncClient(
        transport=transport,
        follow_redirects=False,
        trust_env=False,
        timeout=httpx.Timeout(timeout_s),
        event_hooks={"request": [https_only]},
    )
    return client, backend
