"""A ``POST /mcp`` body that is JSON but no JSON-RPC message, refused in words.

The MCP library answers such a body (an array, ``{"foo": 1}``, ``"jsonrpc": "1.0"``, a request
without ``method``) with pydantic's full report as the error message ("Validation error: 11
validation errors for union[JSONRPCRequest,JSONRPCNotification,...] ... For further
information visit https://errors.pydantic.dev/..."), which MCP clients show to their person.
:func:`message_problem` reads the body as the library will, with the library's own adapter,
and says instead what a message must be. A body that is not JSON at all is refused here too,
before the library reads it (which answered -32700 "Parse error: expected value at line 1
column 1", without the ``[code]`` of Interlock's other refusals): -32700 with
``[invalid_request]`` and the place in words (:func:`interlock.json_words.json_problem`).
"""

from __future__ import annotations

import json

import pydantic_core
from mcp_types import jsonrpc_message_adapter
from pydantic import ValidationError
from starlette.types import Message, Receive

from interlock.errors import JSONRPC_INVALID_REQUEST, JSONRPC_PARSE_ERROR
from interlock.json_words import JSON_ERRORS, json_problem

NOT_A_MESSAGE = (
    'The body is not a JSON-RPC 2.0 message: send one JSON object with "jsonrpc": "2.0" and '
    'a "method" (and an "id" for a request), or a response to a request of this server.'
)
BATCH = (
    "The body is a JSON array (a batch); MCP takes one JSON-RPC message per request: send "
    "each message on its own."
)


def message_problem(body: bytes) -> tuple[int, str] | None:
    """Why ``body`` is not one JSON-RPC message, or None (a message).

    Args:
        body: The whole request body, at most the API's request limit.

    Returns:
        ``(JSON-RPC error code, words)``: -32700 and where the JSON breaks for a body that is
        no JSON; -32600 and :data:`BATCH` for an array, :data:`NOT_A_MESSAGE` for any other
        JSON value the library's message adapter refuses.
    """
    try:
        raw = pydantic_core.from_json(body)
    except JSON_ERRORS as exc:
        return JSONRPC_PARSE_ERROR, _not_json(body, exc)
    if isinstance(raw, list):
        return JSONRPC_INVALID_REQUEST, BATCH
    try:
        jsonrpc_message_adapter.validate_python(raw, by_name=False)
    except ValidationError:
        return JSONRPC_INVALID_REQUEST, NOT_A_MESSAGE
    return None


def _not_json(body: bytes, exc: Exception) -> str:
    """``The body cannot be read as JSON: <why> (line 1, column 1).``: the reason from Python's
    reader, which names the place (``exc``, the library's reader's error, when Python's reads
    it after all)."""
    try:
        json.loads(body)
    except JSON_ERRORS as python:
        exc = python
    why = json_problem(exc)
    if isinstance(exc, json.JSONDecodeError):
        why += f" (line {exc.lineno}, column {exc.colno})"
    return f"The body cannot be read as JSON: {why}."


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
