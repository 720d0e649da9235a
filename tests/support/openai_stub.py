"""A tiny OpenAI-compatible chat-completions server for tests (scripted replies).

It serves ``POST /v1/chat/completions`` on 127.0.0.1 (free port) with uvicorn in a thread,
records every request body and headers, and answers streaming requests in OpenAI's SSE format
(``data: {...}\\n\\n`` chunks, then ``data: [DONE]``) from a queue of :class:`StubReply`.

Like OpenAI, it answers HTTP 400 when a tool carries ``"strict": true`` while its parameters
schema is not strict-valid (:func:`strict_schema_problems`: every object needs
``additionalProperties: false`` and all of its properties in ``required``; ``allOf``,
``minLength``, ``default`` and other keywords outside OpenAI's list are refused).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class StubToolCall:
    """A tool call the stub streams: its arguments arrive in ``arg_pieces`` chunks."""

    id: str
    name: str
    arg_pieces: list[str]


@dataclass(frozen=True)
class StubReply:
    """One streamed answer: text tokens first, then tool calls.

    Attributes:
        text_tokens: Streamed text pieces.
        tool_calls: Streamed tool calls, each on its own ``index`` (0, 1, ...) unless
            ``same_index``.
        same_index: Stream every call on index 0, each starting with its own ``id`` (what
            some OpenAI-compatible servers do).
    """

    text_tokens: list[str] = field(default_factory=list)
    tool_calls: list[StubToolCall] = field(default_factory=list)
    same_index: bool = False


@dataclass(frozen=True)
class ReceivedRequest:
    """What the stub received."""

    body: dict[str, Any]
    headers: dict[str, str]


STRICT_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "$ref",
        "$defs",
        "description",
        "title",
        "pattern",
        "format",
        "multipleOf",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "minItems",
        "maxItems",
    }
)
"""Keywords OpenAI's strict mode accepts (its guide "Structured Outputs", "Supported schemas")."""
STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)


def strict_schema_problems(schema: Any, path: str = "parameters") -> list[str]:
    """List why ``schema`` is not valid for OpenAI's strict mode (empty when it is).

    The rules OpenAI applies: the root is an object (not ``anyOf``); every object has
    ``additionalProperties: false`` and lists all of its properties in ``required``; every
    schema names a ``type`` (or is an ``anyOf``, ``$ref``, ``enum`` or ``const``); only
    :data:`STRICT_KEYWORDS` are used, ``format`` only with :data:`STRICT_FORMATS`.

    Args:
        schema: A JSON Schema node.
        path: Where the node is, for messages.

    Returns:
        Human-readable problems.
    """
    problems: list[str] = []
    if path == "parameters" and isinstance(schema, dict):
        if schema.get("type") != "object" or "anyOf" in schema:
            problems.append(f"{path}: the root must be an object, not anyOf")
    return problems + _node_problems(schema, path)


def _node_problems(schema: Any, path: str) -> list[str]:
    if not isinstance(schema, dict):
        return [f"{path}: a boolean schema is not permitted"]
    problems = [f"{path}: '{k}' is not permitted" for k in schema if k not in STRICT_KEYWORDS]
    if not any(k in schema for k in ("type", "anyOf", "$ref", "enum", "const")):
        problems.append(f"{path}: schema must have a 'type' key")
    if "format" in schema and schema["format"] not in STRICT_FORMATS:
        problems.append(f"{path}: format {schema['format']!r} is not permitted")
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "object" in kinds or "properties" in schema:
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is not False:
            problems.append(f"{path}: 'additionalProperties' is required to be false")
        if sorted(schema.get("required", [])) != sorted(props):
            problems.append(f"{path}: 'required' must list every property")
        for key, sub in props.items():
            problems += _node_problems(sub, f"{path}.properties.{key}")
    if "items" in schema:
        problems += _node_problems(schema["items"], f"{path}.items")
    for n, sub in enumerate(schema.get("anyOf", [])):
        problems += _node_problems(sub, f"{path}.anyOf[{n}]")
    for key, sub in schema.get("$defs", {}).items():
        problems += _node_problems(sub, f"{path}.$defs.{key}")
    return problems


def _is_strict(tool: dict[str, Any]) -> bool:
    function = tool.get("function", {})
    return tool.get("strict") is True or function.get("strict") is True


class OpenAIStub:
    """The stub server. Queue replies with :meth:`add_reply`, start it with :meth:`running`.

    Attributes:
        requests: Every request received, in order.
    """

    def __init__(
        self, model: str = "gpt-4o-mini", *, refuse_strict: bool = False, refuse_all: bool = False
    ) -> None:
        """Args: ``model`` reported in chunks; ``refuse_strict``: answer 400 to any strict
        tool, valid or not (servers without strict mode do); ``refuse_all``: answer 400 to
        every request (as to a request over the context length)."""
        self.model = model
        self.refuse_strict = refuse_strict
        self.refuse_all = refuse_all
        self.requests: list[ReceivedRequest] = []
        self._replies: deque[StubReply] = deque()
        self.app = FastAPI()
        self.app.post("/v1/chat/completions")(self._chat_completions)

    def add_reply(self, reply: StubReply) -> None:
        """Queue the answer to the next request."""
        self._replies.append(reply)

    async def _chat_completions(self, request: Request) -> Response:
        body = await request.json()
        self.requests.append(ReceivedRequest(body=body, headers=dict(request.headers)))
        if self.refuse_all:
            return JSONResponse(
                status_code=400,
                content={
                    "error": {
                        "message": "This model's maximum context length is 8192 tokens.",
                        "type": "invalid_request_error",
                        "param": "messages",
                        "code": "context_length_exceeded",
                    }
                },
            )
        for n, tool in enumerate(body.get("tools") or []):
            if not _is_strict(tool):
                continue
            problems = strict_schema_problems(tool.get("function", {}).get("parameters"))
            if self.refuse_strict:
                problems = ["'strict' is not supported by this server"]
            if problems:
                name = tool.get("function", {}).get("name")
                return JSONResponse(
                    status_code=400,
                    content={
                        "error": {
                            "message": f"Invalid schema for function '{name}': "
                            + "; ".join(problems),
                            "type": "invalid_request_error",
                            "param": f"tools[{n}].function.parameters",
                            "code": "invalid_function_parameters",
                        }
                    },
                )
        reply = self._replies.popleft() if self._replies else StubReply(text_tokens=["ok"])
        if not body.get("stream"):
            return JSONResponse(self._completion(reply))
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        return StreamingResponse(
            self._sse(reply, include_usage=include_usage), media_type="text/event-stream"
        )

    def _chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        return {
            "id": "chatcmpl-stub",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000,
            "model": self.model,
            "system_fingerprint": None,
            "choices": [
                {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
            ],
        }

    async def _sse(self, reply: StubReply, *, include_usage: bool) -> AsyncIterator[str]:
        chunks: list[dict[str, Any]] = [self._chunk({"role": "assistant", "content": ""})]
        chunks += [self._chunk({"content": token}) for token in reply.text_tokens]
        for position, call in enumerate(reply.tool_calls):
            index = 0 if reply.same_index else position
            chunks.append(
                self._chunk(
                    {
                        "tool_calls": [
                            {
                                "index": index,
                                "id": call.id,
                                "type": "function",
                                "function": {"name": call.name, "arguments": ""},
                            }
                        ]
                    }
                )
            )
            chunks += [
                self._chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
                for piece in call.arg_pieces
            ]
        chunks.append(self._chunk({}, "tool_calls" if reply.tool_calls else "stop"))
        if include_usage:
            usage_chunk = self._chunk({})
            usage_chunk["choices"] = []
            usage_chunk["usage"] = {"prompt_tokens": 7, "completion_tokens": 5, "total_tokens": 12}
            chunks.append(usage_chunk)
        for chunk in chunks:
            yield f"data: {json.dumps(chunk)}\n\n"
        yield "data: [DONE]\n\n"

    def _completion(self, reply: StubReply) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": "".join(reply.text_tokens)}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": c.id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": "".join(c.arg_pieces)},
                }
                for c in reply.tool_calls
            ]
        return {
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": 1_700_000_000,
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
            "usage": {"prompt_tokens": 7, "completion_tokens": 5, "total_tokens": 12},
        }

    @contextmanager
    def running(self) -> Iterator[str]:
        """Serve on 127.0.0.1 (free port) in a thread; yield the base URL (``.../v1``)."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        server = uvicorn.Server(
            uvicorn.Config(self.app, log_level="warning", lifespan="off", access_log=False)
        )
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while not server.started:
                if not thread.is_alive() or time.monotonic() > deadline:
                    raise RuntimeError("the OpenAI stub server did not start")
                time.sleep(0.01)
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            server.should_exit = True
            thread.join(STOP_TIMEOUT_S)
            sock.close()
