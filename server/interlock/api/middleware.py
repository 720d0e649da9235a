"""ASGI middleware guarding every request before any route code runs.

* Request bodies over ``max_request_bytes`` are refused with 413 ``payload_too_large`` before they are
  buffered (a declared ``Content-Length`` is checked first, then the bytes as they arrive),
  so an unauthenticated client cannot make the server hold a huge body in memory.
* A request body must arrive whole within ``body_timeout_s`` seconds of the request's start,
  else 408 ``request_timeout``: a client trickling bytes cannot hold a handler forever. Once
  the body is in, waiting for the client to leave (event streams) has no time limit.
* A 408 closes the connection (``Connection: close``): the rest of the body may never come.
* Paths with NUL or other control characters are refused with 404 ``not_found``: no id
  contains them, and some databases (PostgreSQL) cannot even compare them. A query string
  with a NUL character (``%00``) is refused with 422 ``invalid_request`` for the same reason:
  no filter or cursor holds one, and PostgreSQL would fail the query (a 500).
* A body sent to the API (``/api/...``) without a JSON Content-Type, or a POST to
  ``jsonrpc_paths`` without ``application/json``, is refused with 415
  ``unsupported_media_type`` before any route code reads it (FastAPI would not parse it and
  answer with a field error about the body's type; the MCP library with a plain-text 400).
* Every response carries security headers; pages get a Content-Security-Policy that only
  allows the app's own scripts, styles, images and connections.
* Refusals on ``jsonrpc_paths`` (the MCP endpoint) carry the error as a JSON-RPC error body
  (:func:`interlock.errors.jsonrpc_error_body`), the only one MCP clients show.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from interlock.errors import InterlockError, PayloadTooLarge, error_body, jsonrpc_error_body

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
_CONTROL_CHARACTER = re.compile("[\x00-\x1f\x7f]")
"""A control character (refused in a path)."""

SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", CSP.encode()),
]


class GuardMiddleware:
    """Size and time limits, path check and security headers (see the module docstring).

    Args:
        app: The wrapped ASGI app.
        max_request_bytes: Largest request body accepted, in bytes.
        body_timeout_s: Seconds a request body may take to arrive whole.
        jsonrpc_paths: Exact paths whose refusals are JSON-RPC error bodies (``/mcp``).
    """

    def __init__(
        self,
        app: ASGIApp,
        max_request_bytes: int,
        body_timeout_s: float = 30.0,
        jsonrpc_paths: frozenset[str] = frozenset(),
    ) -> None:
        self.app = app
        self.max_request_bytes = max_request_bytes
        self.body_timeout_s = body_timeout_s
        self.jsonrpc_paths = jsonrpc_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        jsonrpc = path in self.jsonrpc_paths
        if _CONTROL_CHARACTER.search(path):
            await _error(send, 404, "not_found", "No such resource.")
            return
        if b"%00" in scope.get("query_string", b""):
            message = "The request is not valid: a query parameter contains a NUL character."
            await _error(send, 422, "invalid_request", message, jsonrpc=jsonrpc)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and (
            not declared.isdigit() or int(declared) > self.max_request_bytes
        ):
            await _error(
                send, 413, PayloadTooLarge.code, self._too_large_message(), jsonrpc=jsonrpc
            )
            return

        if self._not_json(scope, headers, jsonrpc):
            shown = _CONTROL_CHARACTER.sub("", headers.get(b"content-type", b"").decode("latin-1"))
            message = "Send the body as JSON (Content-Type: application/json)" + (
                f"; this request's Content-Type is {shown[:100]}." if shown else "."
            )
            await _error(send, 415, "unsupported_media_type", message, jsonrpc=jsonrpc)
            return

        received = 0
        # No body to wait for: GET & co. without Content-Length or Transfer-Encoding.
        body_done = declared in (None, b"0") and b"transfer-encoding" not in headers
        deadline = asyncio.get_running_loop().time() + self.body_timeout_s
        refusal: tuple[int, str, str] | None = None
        answered = False

        async def guarded_receive() -> Message:
            nonlocal received, refusal, body_done
            if refusal is not None:
                return {"type": "http.disconnect"}
            if body_done:
                return await receive()
            try:
                async with asyncio.timeout_at(deadline):
                    message = await receive()
            except TimeoutError:
                # Stop reading: the app sees the client gone; the answer is ours.
                refusal = (408, "request_timeout", self._timeout_message())
                return {"type": "http.disconnect"}
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_request_bytes:
                    refusal = (413, PayloadTooLarge.code, self._too_large_message())
                    return {"type": "http.disconnect"}
                body_done = not message.get("more_body", False)
            else:
                body_done = True
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal answered
            if refusal is not None:
                if not answered:
                    answered = True
                    await _error(send, *refusal, close=refusal[0] == 408, jsonrpc=jsonrpc)
                return
            if message["type"] == "http.response.start":
                answered = True
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        try:
            await self.app(scope, guarded_receive, guarded_send)
        except Exception:
            if refusal is None:
                raise
        if refusal is not None and not answered:
            await _error(send, *refusal, close=refusal[0] == 408, jsonrpc=jsonrpc)

    @staticmethod
    def _not_json(scope: Scope, headers: dict[bytes, bytes], jsonrpc: bool) -> bool:
        """Whether the request sends a body that is not JSON where only JSON is read."""
        declared = headers.get(b"content-type")
        media = (declared or b"").split(b";", 1)[0].strip().lower()
        if jsonrpc:  # the MCP library reads only application/json, and refuses a POST without
            return scope["method"] == "POST" and media != b"application/json"
        if not scope.get("path", "").startswith("/api/"):
            return False
        has_body = headers.get(b"content-length", b"0") != b"0" or b"transfer-encoding" in headers
        kind, _, subtype = media.partition(b"/")
        is_json = kind == b"application" and (subtype == b"json" or subtype.endswith(b"+json"))
        return has_body and not is_json

    def _too_large_message(self) -> str:
        return f"The request is too large: its body is over {self.max_request_bytes:,} bytes."

    def _timeout_message(self) -> str:
        return f"The request body did not arrive within {self.body_timeout_s:g} seconds."


async def _error(
    send: Send, status: int, code: str, message: str, *, close: bool = False, jsonrpc: bool = False
) -> None:
    exc = InterlockError(message, code=code)
    body: dict[str, Any] = jsonrpc_error_body(exc) if jsonrpc else error_body(exc)
    payload = json.dumps(body).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
        *SECURITY_HEADERS,
    ]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
