"""``/api/tools`` while a remote MCP server is down: its tools stay listed, marked unavailable
with the reason a person reads (as ``/api/mcp-servers`` shows a refused tool), and are available
again when the server is back."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from interlock.settings import Settings
from support.live import LiveServer, live_server
from support.mcp_remote import RemoteMcp
from support.waits import wait_until


async def _listed(server: LiveServer, name: str) -> dict[str, Any]:
    response = await server.client.get("/api/tools")
    assert response.status_code == 200, response.text
    return next(t for t in response.json() if t["name"] == name)


def _cause(reason: str) -> str:
    """A reason without its countdown ("Interlock tries again in N s")."""
    return reason.split(" Interlock tries")[0]


async def test_a_down_server_s_tools_are_listed_unavailable_with_the_reason(
    remote: RemoteMcp, db_url: str, tmp_path: Path
):
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=db_url,
        client_dist=tmp_path / "no-client",
        mcp_servers={"files": {"url": remote.url}},
        mcp_retry_max_s=1.0,
    )
    async with live_server(settings) as server:
        session = server.services.mcp_sources.sources["files"].session
        await wait_until(lambda: session.state == "ready", timeout_s=30, what="ready")
        echo = await _listed(server, "mcp.files.echo")
        assert (echo["available"], echo["reason"]) == (True, None)
        notes = await _listed(server, "notes.add")
        assert (notes["available"], notes["reason"]) == (True, None)

        remote.kill()
        await wait_until(lambda: session.state == "down", timeout_s=60, what="down")
        echo = await _listed(server, "mcp.files.echo")
        assert echo["available"] is False
        reason = echo["reason"]
        assert reason.startswith("The MCP server 'files' is not available: "), reason
        assert "Interlock tries again in" in reason, reason
        assert "{" not in reason and "Error" not in reason, reason  # a sentence, no dump
        # The admin listing says the same of the same tool (read between two listings that
        # agree: a retry in between may fail with other words, e.g. refused, then reset).
        for _attempt in range(20):
            admin = (await server.client.get("/api/mcp-servers/files")).json()
            after = (await _listed(server, "mcp.files.echo"))["reason"]
            if _cause(after) == _cause(reason):
                break
            reason = after
        row = next(t for t in admin["tools"] if t["name"] == "mcp.files.echo")
        assert row["available"] is False
        assert _cause(row["reason"]) == _cause(reason)
        # Other tools are unaffected.
        assert (await _listed(server, "notes.add"))["available"] is True

        await remote.start()
        await wait_until(lambda: session.state == "ready", timeout_s=30, what="back")
        echo = await _listed(server, "mcp.files.echo")
        assert (echo["available"], echo["reason"]) == (True, None)
