"""HEAD on every API route that takes GET.

RFC 9110 §9.1 asks every general-purpose server to support GET and HEAD, and monitors probe
``HEAD /api/health``; FastAPI's routes take only the methods they declare. A HEAD request
under ``/api/`` therefore runs as the GET it mirrors, and its answer keeps the status and
headers (``Content-Length`` included) but sends no body: the answer is complete once its
headers are out, and the route is then told the client has gone (an event stream ends).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from interlock.api.errors import allowed_methods


class HeadAsGetMiddleware:
    """Answer ``HEAD`` under ``/api/`` as the ``GET`` of the same path, without its body.

    Args:
        app: the ASGI app to wrap.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope["method"] != "HEAD"
            or not scope["path"].startswith("/api/")
            or "GET" not in allowed_methods(scope["app"], scope["path"])
        ):  # no GET to mirror: the error handlers answer 404 or 405
            await self.app(scope, receive, send)
            return
        started = False

        async def headers_only(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                await send(message)
                await send({"type": "http.response.body", "body": b"", "more_body": False})
            elif message["type"] != "http.response.body":
                await send(message)
            # The body, streamed or not, is dropped: the answer is complete already.

        async def gone_once_answered() -> Message:
            if started:  # a stream has nothing more to send a HEAD request
                return {"type": "http.disconnect"}
            return await receive()

        # A copy: the server keeps seeing HEAD (uvicorn sends no body for it either).
        await self.app(dict(scope, method="GET"), gone_once_answered, headers_only)
