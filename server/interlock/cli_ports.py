"""Where ``interlock serve`` listens: the address as a URL writes it, and a port check in words.

The check runs before any start-up work (migrations, recovery), so a port another program
holds is reported with a way out instead of uvicorn's ``[Errno 98]`` after the migrations ran;
the port it suggests instead is one that is free at that moment.
"""

from __future__ import annotations

import errno
import socket
from typing import Any

from interlock.cli_common import fail

SUGGESTION_TRIES = 50
"""How many ports after a taken one are probed for a free one to suggest."""


def authority(host: str, port: int) -> str:
    """``host:port`` as a URL writes it: an IPv6 address in brackets (RFC 3986, 3.2.2)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def refuse_a_taken_port(host: str, port: int) -> None:
    """Fail before any start-up work when ``host:port`` cannot be listened on.

    Binds (and closes) a socket on each address ``host`` resolves to, with the options uvicorn
    uses.

    Args:
        host: Interface name or address.
        port: TCP port, 1 to 65535.

    Raises:
        typer.Exit: Code 1, after printing which address is taken and how to choose another
            (naming a free port when one of the next ``SUGGESTION_TRIES`` is).
    """
    where = authority(host, port)
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise fail(
            f"cannot listen on {where}: the host is unknown ({exc.strerror}). Choose another "
            "with `interlock serve --host 127.0.0.1` or the INTERLOCK_HOST setting."
        ) from None
    problem = _bind_problem(addresses, port)
    if problem is None:
        return
    free = _free_port_after(addresses, port)
    option = f"`interlock serve --port {free}` (free now)" if free else "`interlock serve --port`"
    another = (
        f"Choose another port with {option} or the INTERLOCK_PORT setting (also read by "
        "`make run`), or stop the program using it."
    )
    if problem.errno == errno.EADDRINUSE:
        raise fail(
            f"{where} is already in use: another program (perhaps another Interlock) is "
            f"listening there. {another}"
        )
    if problem.errno == errno.EACCES:
        raise fail(f"{where} needs privileges to listen on. {another}")
    raise fail(f"cannot listen on {where}: {problem.strerror}. {another}")


def _bind_problem(addresses: list[Any], port: int) -> OSError | None:
    """The error binding ``port`` on one of ``addresses`` (from ``getaddrinfo``), or None."""
    for family, kind, proto, _name, address in addresses:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            try:
                probe.bind((address[0], port, *address[2:]))
            except OSError as exc:
                return exc
    return None


def _free_port_after(addresses: list[Any], port: int) -> int | None:
    """The first port after ``port`` that every address can bind now, or None."""
    for candidate in range(port + 1, min(port + SUGGESTION_TRIES, 65535) + 1):
        if _bind_problem(addresses, candidate) is None:
            return candidate
    return None
