"""``/api/mcp-servers``: admins list, add, refresh and delete remote MCP servers; members may not."""

from __future__ import annotations

from pathlib import Path

from interlock.settings import Settings
from interlock.storage import Database
from interlock.storage.users import create_user
from support.live import live_server
from support.mcp_remote import RemoteMcp
from support.waits import wait_until


async def test_admins_manage_remote_servers(remote: RemoteMcp, db_url: str, tmp_path: Path):
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=db_url,
        client_dist=tmp_path / "no-client",
        mcp_servers={"remote": {"url": remote.url, "title": "Test tools"}},
        mcp_retry_max_s=1.0,
        http_allowed_hosts=["127.0.0.1"],  # servers added through the API: public ones only
    )
    db = Database(db_url)
    _admin, admin_token = create_user(db, "ann", role="admin")
    _member, member_token = create_user(db, "bob")
    db.dispose()
    admin = {"Authorization": f"Bearer {admin_token}"}
    async with live_server(settings, headers=admin) as server:
        sources = server.services.mcp_sources
        await wait_until(
            lambda: sources.sources["remote"].session.state == "ready", timeout_s=30, what="ready"
        )
        listed = (await server.client.get("/api/mcp-servers")).json()
        assert [s["name"] for s in listed] == ["remote"]
        remote_out = listed[0]
        assert remote_out["state"] == "ready" and remote_out["origin"] == "settings"
        by_remote = {t["remote_name"]: t for t in remote_out["tools"]}
        assert by_remote["echo"]["name"] == "mcp.remote.echo"
        assert by_remote["echo"]["permission"] == "ASK"
        assert by_remote["refused"]["available"] is False
        assert "JSON Schema" in by_remote["refused"]["reason"]

        member = {"Authorization": f"Bearer {member_token}"}
        assert (await server.client.get("/api/mcp-servers", headers=member)).status_code == 403

        refreshed = await server.client.post("/api/mcp-servers/remote/refresh")
        assert refreshed.status_code == 200 and refreshed.json()["state"] == "ready"
        changed = await server.client.put("/api/mcp-servers/remote", json={"url": remote.url})
        assert changed.status_code == 409
        assert changed.json()["error"]["code"] == "mcp_server_in_settings"
        stdio = await server.client.put("/api/mcp-servers/local", json={"command": ["true"]})
        assert stdio.status_code == 422

        added = await server.client.put(
            "/api/mcp-servers/second", json={"url": remote.url, "permissions": {"echo": "ALLOW"}}
        )
        assert added.status_code == 200, added.text
        registry = server.services.registry
        await wait_until(lambda: "mcp.second.echo" in registry, timeout_s=30, what="added")
        echo = registry.get("mcp.second.echo")
        assert echo is not None and echo.permission == "ALLOW"

        gone = await server.client.delete("/api/mcp-servers/second")
        assert gone.status_code == 204
        assert "mcp.second.echo" not in registry
        missing = await server.client.get("/api/mcp-servers/second")
        assert missing.status_code == 404

    # Stored: a new process starts the admin's server again.
    async with live_server(settings, headers=admin) as server:
        put = await server.client.put("/api/mcp-servers/third", json={"url": remote.url})
        assert put.status_code == 200
    async with live_server(settings, headers=admin) as server:
        names = [s["name"] for s in (await server.client.get("/api/mcp-servers")).json()]
        assert names == ["remote", "third"]
