"""C12 - proxies and silence.

The model stays silent before its first token (``offline_first_token_delay_s``; the case's 70 s
are scaled down together with ``ping_interval_s``). The stream must carry the headers proxies
need (``text/event-stream``, ``Cache-Control: no-cache``, ``X-Accel-Buffering: no``), never be
compressed, and send keep-alive comments at the configured interval throughout the silence,
on one connection that stays open until the run completes.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from interlock.settings import Settings
from support.live import live_server

SILENCE_S = 1.5
PING_INTERVAL_S = 0.2
TERMINAL = {"run.paused", "run.completed", "run.failed", "run.cancelled"}


@pytest.fixture
def settings(db_url: str, tmp_path: Path) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=db_url,
        client_dist=tmp_path / "no-client",
        offline_first_token_delay_s=SILENCE_S,
        ping_interval_s=PING_INTERVAL_S,
    )


@dataclass
class Block:
    """One SSE block (lines up to a blank line) and when its last line arrived."""

    at: float
    lines: list[str]

    @property
    def is_comment(self) -> bool:
        return all(line.startswith(":") for line in self.lines)

    def field(self, name: str) -> str | None:
        for line in self.lines:
            key, _, value = line.partition(":")
            if key == name:
                return value[1:] if value.startswith(" ") else value
        return None


async def test_case_c12_headers_no_compression_and_pings_through_the_silence(
    settings: Settings,
) -> None:
    async with live_server(settings) as server:
        conversation_id = await server.new_conversation()
        blocks: list[Block] = []
        async with asyncio.timeout(60):
            async with server.client.stream(
                "GET",
                f"/api/conversations/{conversation_id}/events",
                headers={"Accept-Encoding": "gzip, deflate, br"},
            ) as response:
                assert response.status_code == 200
                assert response.headers["content-type"].split(";")[0] == "text/event-stream"
                assert response.headers["cache-control"] == "no-cache"
                assert response.headers["x-accel-buffering"] == "no"
                assert "content-encoding" not in response.headers
                assert response.http_version == "HTTP/1.1"

                started = time.monotonic()
                await server.say(conversation_id, "hello")
                current: list[str] = []
                # aiter_raw: the bytes as sent, so a compressed body could not slip through.
                buffer = b""
                done = False
                async for chunk in response.aiter_raw():
                    buffer += chunk
                    while b"\n" in buffer:
                        raw, _, buffer = buffer.partition(b"\n")
                        line = raw.decode("utf-8").rstrip("\r")
                        if line:
                            current.append(line)
                            continue
                        if current:
                            blocks.append(Block(at=time.monotonic() - started, lines=current))
                            current = []
                            if blocks[-1].field("event") in TERMINAL:
                                done = True
                    if done:
                        break

    frames = [b for b in blocks if not b.is_comment]
    pings = [b for b in blocks if b.is_comment]
    types = [b.field("event") for b in frames]
    assert types[0] == "run.started" and types[-1] == "run.completed", types
    first_delta = types.index("message.delta")
    first_delta_at = frames[first_delta].at
    assert first_delta_at >= SILENCE_S * 0.9

    # Pings are bare comments (no id, no event, no data) at roughly the configured interval.
    assert all(b.lines == [": ping"] for b in pings), [b.lines for b in pings]
    silent_pings = [b.at for b in pings if b.at < first_delta_at]
    # The bounds follow the silence as measured: on a busy machine the run starts late, so the
    # silence lasts longer than SILENCE_S and carries more pings. The interval shows in how
    # many pings it carried, not in the gaps between arrivals (two pings can reach the client
    # in one read).
    silence = first_delta_at
    expected = SILENCE_S / PING_INTERVAL_S
    assert expected / 3 <= len(silent_pings) <= silence / PING_INTERVAL_S * 2 + 1, (
        silent_pings,
        silence,
    )
    # They kept coming through the whole silence: some in its first half, some in its second.
    assert silent_pings[0] <= silence / 2 <= silent_pings[-1], (silent_pings, silence)

    # The same connection carried the whole run: ids 1..N without a gap, data parses.
    ids = [int(b.field("id") or "-1") for b in frames]
    assert ids == list(range(1, len(ids) + 1))
    data: list[dict[str, Any]] = [json.loads(b.field("data") or "null") for b in frames]
    assert [d["type"] for d in data] == types
    assert data[-1]["type"] == "run.completed"
