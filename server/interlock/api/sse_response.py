"""The Server-Sent Events response of the API's streams (conversation events, AG-UI).

sse-starlette ends a stream at server shutdown by cancelling the task that sends it: the
response's last, empty body piece is never sent, and uvicorn logs "ASGI callable returned
without completing response." for each stream open at a SIGTERM, then cuts the connection (a
client reads an incomplete body). :class:`EventStream` ends such a stream as a complete
response instead, so a normal shutdown logs nothing and clients see the stream end (they
reconnect with ``Last-Event-ID``, as after any end).
"""

from __future__ import annotations

from collections.abc import Callable

from sse_starlette import EventSourceResponse
from starlette.types import Message, Receive, Scope, Send


class EventStream(EventSourceResponse):
    """An SSE response that always completes a body it started.

    Also names the media type for OpenAPI (sse_starlette sets it per instance); ``on_close``
    runs once the response ends, however it ends (a stream whose generator never started
    still releases its subscription). Without a send timeout (none is set here) each piece
    is sent as is, without the cancel scope sse_starlette opens per send for a timeout.
    """

    media_type = "text/event-stream"

    on_close: Callable[[], None] | None = None

    async def _send_with_timeout(self, send: Send, message: Message) -> None:
        if self.send_timeout is None:  # ``move_on_after(None)`` never cancels anything
            await send(message)
        else:
            await super()._send_with_timeout(send, message)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = ended = False

        async def tracked(message: Message) -> None:
            nonlocal started, ended
            if message["type"] == "http.response.start":
                started = True
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                ended = True
            await send(message)

        try:
            await super().__call__(scope, receive, tracked)
            if started and not ended and scope["type"] == "http":
                # Stopped by the server's shutdown (sse-starlette cancelled the sending task
                # before its last piece): end the body, as a finished stream would. After a
                # client left, the server drops this piece.
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        finally:
            if self.on_close is not None:
                self.on_close()
