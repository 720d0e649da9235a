"""Holding the run starts a request asks for, to read what its commit alone left."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from interlock.engine.runner import Engine

HELD = ("spawn_soon", "schedule_resume")
"""The engine's ways to start a run after a commit: at once, or in a task of its own."""


@contextmanager
def run_starts_held(engine: Engine) -> Iterator[None]:
    """Inside: every run start the engine is asked for waits; on leaving, each one is made,
    in order. A reader inside sees what the commits alone left, before any task ran."""
    held: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = []
    try:
        with pytest.MonkeyPatch.context() as patch:
            for name in HELD:
                patch.setattr(engine, name, lambda *a, _n=name, **k: held.append((_n, a, k)))
            yield
    finally:  # also after a failed check: no run is left claimed and never started
        for name, args, kwargs in held:
            getattr(engine, name)(*args, **kwargs)


async def assert_running_not_idle(client: httpx.AsyncClient, conversation_id: str) -> None:
    """The conversation reads running with nothing pending, and a message sent now is
    refused as ``run_active``: what the detail says and what a message meets agree."""
    url = f"/api/conversations/{conversation_id}"
    detail = (await client.get(url)).json()
    assert (detail["status"], detail["pending"]) == ("running", 0), detail
    sent = await client.post(f"{url}/messages", json={"content": "hello?"})
    assert sent.status_code == 409 and sent.json()["error"]["code"] == "run_active"
