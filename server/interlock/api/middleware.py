"""ASGI middleware guarding every request before any route code runs.

* Request bodies over ``max_request_bytes`` are refused with 413 ``too_large`` before they are
  buffered (a declared ``Content-Length`` is checked first, then the bytes as they arrive),
  so an unauthenticated client cannot make the server hold a huge body in memory.
* Paths with NUL or other control characters are refused with 404 ``not_found``: no id
  contains them, and some databases (PostgreSQL) cannot even compare them.
* Every response carries security headers; pages get a Content-Security-Policy that only
  allows the app's own scripts, styles, images and connections.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; font-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", CSP.encode()),
]


class GuardMiddleware:
    """Size limit, path check and security headers (see the module docstring).

    Args:
        app: The wrapped ASGI app.
        max_request_bytes: Largest request body accepted, in bytes.
    """

    def __init__(self, app: ASGIApp, max_request_bytes: int) -> None:
        self.app = app
        self.max_request_bytes = max_request_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope.get("path", "")
        if any(ord(c) < 32 or ord(c) == 127 for c in path):
            await _error(send, 404, "not_found", "No such resource.")
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None and (
            not declared.isdigit() or int(declared) > self.max_request_bytes
        ):
            await _error(send, 413, "too_large", self._too_large_message())
            return

        received = 0
        too_large = False
        answered = False

        async def limited_receive() -> Message:
            nonlocal received, too_large
            if too_large:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_request_bytes:
                    # Stop reading: the app sees the client gone; the answer is ours.
                    too_large = True
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal answered
            if too_large:
                if not answered:
                    answered = True
                    await _error(send, 413, "too_large", self._too_large_message())
                return
            if message["type"] == "http.response.start":
                answered = True
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        try:
            await self.app(scope, limited_receive, guarded_send)
        except Exception:
            if not too_large:
                raise
        if too_large and not answered:
            await _error(send, 413, "too_large", self._too_large_message())

    def _too_large_message(self) -> str:
        return f"The request body is over {self.max_request_bytes} bytes."


async def _error(send: Send, status: int, code: str, message: str) -> None:
    body: dict[str, Any] = {"error": {"code": code, "message": message}}
    payload = json.dumps(body).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                *SECURITY_HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload})
