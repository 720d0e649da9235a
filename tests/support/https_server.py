"""A tiny HTTPS/1.1 server on 127.0.0.1 with a throwaway CA, for outbound-HTTP tests.

``async with serve_https(tmp_path) as server:`` starts it on a free port; ``server.route(path,
handler)`` answers requests to ``path`` with ``await handler(request)`` (a :class:`Reply`, or
None to close the connection without answering); every request is recorded in
``server.requests``. The certificate is issued by a fresh CA (``server.ca_file``) for
``localhost``, ``api.test`` and ``127.0.0.1``. Nothing listens beyond 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from interlock.settings import Settings

CERT_NAMES = ("localhost", "api.test")


@dataclass
class Seen:
    """One request as received: method, path, query pairs, lowercase headers, raw body."""

    method: str
    path: str
    query: list[tuple[str, str]]
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Reply:
    """An answer: status, body (bytes, or any JSON value when ``json`` is set), headers."""

    status: int = 200
    json: Any = None
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[Seen], Awaitable[Reply | None]]


def json_reply(value: Any, status: int = 200) -> Handler:
    """A handler that always answers ``value`` as JSON."""

    async def handle(request: Seen) -> Reply:
        return Reply(status=status, json=value)

    return handle


class HttpsServer:
    def __init__(self, ca_file: Path, context: ssl.SSLContext) -> None:
        self.ca_file = ca_file
        self.port = 0
        self.requests: list[Seen] = []
        self._context = context
        self._routes: dict[str, Handler] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._server: asyncio.Server | None = None

    def route(self, path: str, handler: Handler) -> None:
        self._routes[path] = handler

    def hits(self, path: str) -> list[Seen]:
        return [r for r in self.requests if r.path == path]

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self._context)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with suppress(BaseException):
                await task
        await self._server.wait_closed()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            request = await _read_request(reader)
            if request is None:
                return
            self.requests.append(request)
            handler = self._routes.get(request.path)
            reply = await handler(request) if handler else Reply(status=404, json={"error": 1})
            if reply is not None:
                writer.write(_encode(reply))
                await writer.drain()
        except (ConnectionError, ssl.SSLError, asyncio.IncompleteReadError):
            pass
        except asyncio.CancelledError:
            pass  # only stop() cancels; ending normally keeps asyncio's stream callback quiet
        finally:
            self._tasks.discard(task)
            writer.close()
            with suppress(Exception):
                await writer.wait_closed()


async def _read_request(reader: asyncio.StreamReader) -> Seen | None:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    parts = urlsplit(target)
    query = parse_qsl(parts.query, keep_blank_values=True)
    return Seen(method=method, path=parts.path, query=query, headers=headers, body=body)


def _encode(reply: Reply) -> bytes:
    body = reply.body if reply.body is not None else json.dumps(reply.json).encode()
    headers = {"Content-Type": "application/json", **reply.headers}
    headers["Content-Length"] = str(len(body))
    headers["Connection"] = "close"
    head = f"HTTP/1.1 {reply.status} X\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return head.encode("latin-1") + b"\r\n" + body


def _certificates(directory: Path) -> tuple[Path, Path, Path]:
    """Write ``ca.pem``, ``server.pem`` and ``server.key``; return their paths."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Interlock test CA")])
    ca_cert = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    names: list[x509.GeneralName] = [x509.DNSName(n) for n in CERT_NAMES]
    names.append(x509.IPAddress(ipaddress.ip_address("127.0.0.1")))
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    ca_file, cert_file, key_file = (
        directory / "ca.pem",
        directory / "server.pem",
        directory / "server.key",
    )
    ca_file.write_bytes(ca_cert.public_bytes(serialization.Encoding.PEM))
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return ca_file, cert_file, key_file


@asynccontextmanager
async def serve_https(directory: Path) -> AsyncIterator[HttpsServer]:
    """Run an :class:`HttpsServer` on 127.0.0.1 (certificates written to ``directory``)."""
    ca_file, cert_file, key_file = _certificates(directory)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    server = HttpsServer(ca_file, context)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def make_settings(server: HttpsServer | None = None, **overrides: Any) -> Settings:
    """Settings for declarative-tool tests: no ``.env``; with a server, trust its CA and allow
    ``localhost`` (the test-only allowlist), unless overridden."""
    values: dict[str, Any] = {}
    if server is not None:
        values = {"http_allowed_hosts": ["localhost"], "http_ca_bundle": server.ca_file}
    values.update(overrides)
    return Settings(_env_file=None, **values)
