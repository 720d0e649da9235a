"""Whether the server under test can run as several workers on PostgreSQL, for (d) and (e).

Checked by behaviour, not by version: two server processes on one fresh PostgreSQL database,
a stream open on the first, a message posted to the second; the events must reach the stream
(PostgreSQL LISTEN/NOTIFY between workers). (e) also needs run leases
(``INTERLOCK_RUN_LEASE_S``), looked up in the settings, the code and the storage tables.
"""

from __future__ import annotations

import asyncio
import importlib.util
from functools import cache

from common import ASK_PROMPT, run_async
from interlock.settings import Settings
from load_client import LoadClient
from server import ServerProcess, postgres_database

PROBE_WAIT_S = 5.0


@cache
def cross_worker_problem() -> str | None:
    """Return why events do not cross workers (``None`` when they do)."""
    with postgres_database("interlock_probe") as url:
        servers = [ServerProcess(url) for _ in range(2)]
        try:
            for server in servers:
                server.start()
            return run_async(_probe(servers[0].url, servers[1].url))
        finally:
            for server in servers:
                server.stop()


async def _probe(stream_url: str, post_url: str) -> str | None:
    reader, writer = LoadClient(stream_url), LoadClient(post_url)
    try:
        conversation_id = await writer.new_conversation()
        async with reader.events(conversation_id) as stream:
            await writer.say(conversation_id, ASK_PROMPT.format(name="probe"))
            try:
                async with asyncio.timeout(PROBE_WAIT_S):
                    await stream.until("run.paused")
            except TimeoutError:
                return (
                    "events do not cross workers: a run started on one worker sent nothing "
                    f"to a stream held by the other within {PROBE_WAIT_S:g} s (PostgreSQL "
                    "LISTEN/NOTIFY not in this server yet)"
                )
    finally:
        await reader.aclose()
        await writer.aclose()
    return None


def lease_problem() -> str | None:
    """Return why runs cannot be taken over by another worker (``None`` when they can).

    Run leases are looked for in the code (``interlock.engine.leases``) and in storage (a
    ``workers`` table, or a table or column with ``lease`` in its name).
    """
    from sqlmodel import SQLModel

    import interlock.storage  # noqa: F401  (registers every table)

    if "run_lease_s" not in Settings.model_fields:
        return "no run leases in this server (setting INTERLOCK_RUN_LEASE_S does not exist yet)"
    if importlib.util.find_spec("interlock.engine.leases") is not None:
        return None
    tables = SQLModel.metadata.tables.values()
    if any(
        t.name == "workers" or "lease" in t.name or any("lease" in c.name for c in t.columns)
        for t in tables
    ):
        return None
    return "no run leases in this server yet (no lease code or table)"
