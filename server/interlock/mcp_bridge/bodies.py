"""A ``POST /mcp`` body that is JSON but no JSON-RPC message, refused in words.

The MCP library answers such a body (an array, ``{"foo": 1}``, ``"jsonrpc": "1.0"``, a request
without ``method``) with pydantic's full report as the error message ("Validation error: 11
validation errors for union[JSONRPCRequest,JSONRPCNotification,...] ... For further
information visit https://errors.pydantic.dev/..."), which MCP clients show to their person.
:func:`message_problem` reads the body as the library will, with the library's own adapter,
and says instead what a message must be. A body that is not JSON at all keeps the library's
answer (-32700 "Parse error: ..." naming the place).
"""

from __future__ import annotations

import pydantic_core
from mcp_types import jsonrpc_message_adapter
from pydantic import ValidationError
from starlette.types import Message, Receive

from interlock.json_words import JSON_ERRORS

NOT_A_MESSAGE = (
    'The body is not a JSON-RPC 2.0 message: send one JSON object with "jsonrpc": "2.0" and '
    'a "method" (and an "id" for a request), or a response to a request of this server.'
)
BATCH = (
    "The body is a JSON array (a batch); MCP takes one JSON-RPC message per request: send "
    "each message on its own."
)


def message_problem(body: bytes) -> str | None:
    """Why ``body`` is JSON but not one JSON-RPC message, or None (a message, or not JSON).

    Args:
        body: The whole request body, at most the API's request limit.

    Returns:
        :data:`BATCH` for an array, :data:`NOT_A_MESSAGE` for any other JSON value the
        library's message adapter refuses, None otherwise.
    """
    try:
        raw = pydantic_core.from_json(body)
    except JSON_ERRORS:
        return None  # the library's "Parse error: ..." names where
    if isinstance(raw, list):
        return BATCH
    try:
        jsonrpc_message_adapter.validate_python(raw, by_name=False)
    except ValidationError:
        return NOT_A_MESSAGE
    return None


def replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that hands out ``body`` (already read) once, then reads on from
    ``receive`` (the client's disconnect)."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again
