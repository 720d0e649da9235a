"""AG-UI fixtures: a live server on loopback (offline model) and a small AG-UI SSE reader."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import httpx

from support.api_fixtures import api_settings, server
from support.live import WAIT_S

__all__ = ["api_settings", "server"]


def run_input(conversation_id: str, **fields: Any) -> dict[str, Any]:
    """A RunAgentInput body (camelCase, as clients send it): a new ``runId`` each time."""
    return {
        "threadId": conversation_id,
        "runId": f"run-{uuid.uuid4().hex[:8]}",
        "messages": [],
        **fields,
    }


def resolved(interrupt_id: str, payload: Any = None) -> dict[str, Any]:
    """One ``resume`` entry answering ``interrupt_id`` with ``payload`` (approve when None)."""
    answer = {"type": "approve"} if payload is None else payload
    return {"interruptId": interrupt_id, "status": "resolved", "payload": answer}


def user_message(text: str) -> dict[str, Any]:
    return {"id": f"user-{uuid.uuid4().hex[:8]}", "role": "user", "content": text}


async def agui_run(
    client: httpx.AsyncClient, conversation_id: str, body: dict[str, Any] | str
) -> list[dict[str, Any]]:
    """POST ``body`` to the AG-UI endpoint and return every event until the stream ends.

    A ``str`` body is sent as it is (JSON written by hand: escapes such as a lone surrogate
    kept as sent). The whole run is bounded by ``WAIT_S`` (pings keep each read alive).
    """
    events: list[dict[str, Any]] = []
    sent: dict[str, Any] = (
        {"content": body.encode(), "headers": {"content-type": "application/json"}}
        if isinstance(body, str)
        else {"json": body}
    )
    async with (
        asyncio.timeout(WAIT_S),
        client.stream("POST", f"/api/ag-ui/{conversation_id}", **sent) as response,
    ):
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        async for line in response.aiter_lines():
            if line.startswith("data:"):
                events.append(json.loads(line[5:]))
    return events


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def one(events: list[dict[str, Any]], type_: str) -> dict[str, Any]:
    found = [e for e in events if e["type"] == type_]
    assert len(found) == 1, types(events)
    return found[0]
