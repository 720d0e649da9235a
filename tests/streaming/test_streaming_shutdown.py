"""A server stopped with SIGTERM ends its open event streams cleanly.

A real ``interlock serve`` on loopback, with a conversation's event stream
open: the stream's body ends as a complete response (the client reads its end, no cut
connection), the process ends by the signal, and its log holds no error (uvicorn's "ASGI callable returned
without completing response." was logged for every stream open at shutdown).
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from support.processes import STOP_TIMEOUT_S, ServerProcess, start_server
from support.sse import EventLog, iter_frames


async def _read_to_the_end(
    server: ServerProcess, method: str, path: str, opened: asyncio.Event, **kwargs: object
) -> EventLog:
    """Read a stream until its body ends; ``opened`` is set once its headers came."""
    log = EventLog()
    async with server.client.stream(method, path, **kwargs) as response:  # type: ignore[arg-type]
        assert response.status_code == 200
        opened.set()
        async for _frame in iter_frames(response, log):
            pass
    return log


async def test_sigterm_ends_open_streams_with_a_complete_response_and_no_error(
    db_url: str, tmp_path: Path
) -> None:
    server, _port = start_server(db_url, tmp_path)
    try:
        await server.wait_ready()
        conversation_id = (await server.client.post("/api/conversations", json={})).json()["id"]
        events_open = asyncio.Event()
        events = asyncio.create_task(
            _read_to_the_end(
                server, "GET", f"/api/conversations/{conversation_id}/events", events_open
            )
        )
        async with asyncio.timeout(30):
            await events_open.wait()
        server.process.send_signal(signal.SIGTERM)
        async with asyncio.timeout(STOP_TIMEOUT_S):
            log_read = await events  # httpx.RemoteProtocolError on a cut, incomplete body
        returncode = await asyncio.to_thread(server.process.wait, STOP_TIMEOUT_S)
    finally:
        await server.stop()
    log = server.log()
    assert returncode in (0, -signal.SIGTERM), log  # uvicorn re-raises the signal it caught
    assert "ASGI callable returned without completing response" not in log, log
    assert "ERROR" not in log, log
    assert log_read.frames == []  # a new conversation: nothing to replay, nothing lost
