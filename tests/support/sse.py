"""A small SSE reader for tests: parses frames from an httpx stream, every wait bounded."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

TERMINAL = {"run.paused", "run.completed", "run.failed", "run.cancelled"}


@dataclass
class Frame:
    """One SSE frame: ``id``, ``event``, parsed ``data``; comments are collected apart."""

    id: str | None
    event: str | None
    data: Any


@dataclass
class EventLog:
    frames: list[Frame] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)

    @property
    def types(self) -> list[str]:
        return [f.event or "" for f in self.frames]

    def of(self, type_: str) -> list[dict[str, Any]]:
        return [f.data for f in self.frames if f.event == type_]


async def iter_frames(response: httpx.Response, log: EventLog) -> AsyncIterator[Frame]:
    """Yield frames of ``response`` as they arrive, recording comments in ``log``."""
    fields: dict[str, list[str]] = {}
    async for line in response.aiter_lines():
        if line == "":
            if fields:
                data_text = "\n".join(fields.get("data", []))
                frame = Frame(
                    id=fields.get("id", [None])[-1],
                    event=fields.get("event", [None])[-1],
                    data=json.loads(data_text) if data_text else None,
                )
                fields = {}
                log.frames.append(frame)
                yield frame
            continue
        if line.startswith(":"):
            log.comments.append(line[1:].strip())
            continue
        name, _, value = line.partition(":")
        fields.setdefault(name, []).append(value[1:] if value.startswith(" ") else value)


async def collect(
    client: httpx.AsyncClient,
    conversation_id: str,
    *,
    until: Callable[[EventLog], bool],
    last_event_id: str | None = None,
    timeout_s: float = 45.0,
    headers: dict[str, str] | None = None,
) -> EventLog:
    """Open the event stream and read until ``until(log)`` is true (at most ``timeout_s``).

    ``headers`` are sent too (e.g. another user's ``Authorization``).
    """
    log = EventLog()
    headers = dict(headers or {})
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    async with asyncio.timeout(timeout_s):
        async with client.stream(
            "GET", f"/api/conversations/{conversation_id}/events", headers=headers
        ) as response:
            assert response.status_code == 200, await response.aread()
            async for _frame in iter_frames(response, log):
                if until(log):
                    break
    return log


def terminals(n: int) -> Callable[[EventLog], bool]:
    """Stop condition: ``n`` terminal run events seen."""
    return lambda log: sum(1 for t in log.types if t in TERMINAL) >= n
