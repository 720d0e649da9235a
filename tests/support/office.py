"""An office of people for the approver tests, and its live server with a scripted model.

Users: ``owner`` (member, owns the conversations), ``ana`` and ``ben`` (approvers of the
employee ``assistant``: ana by name, ben through the group ``finance``), ``eve`` (member, no
role) and ``boss`` (admin, sets the employee's rules).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from interlock.models import ScriptedChatModel, scripted_message
from interlock.settings import Settings
from interlock.storage import Database
from interlock.storage.groups import add_member
from interlock.storage.users import create_user
from support.live import LiveServer, live_server
from support.notes import stored_notes
from support.sse import collect, terminals


@dataclass
class Office:
    server: LiveServer
    clients: dict[str, httpx.AsyncClient]

    async def paused_call(self, text: str) -> tuple[str, dict[str, Any], str]:
        owner = self.clients["owner"]
        created = await owner.post("/api/conversations", json={})
        conversation_id = created.json()["id"]
        said = await owner.post(
            f"/api/conversations/{conversation_id}/messages", json={"content": f"add {text}"}
        )
        assert said.status_code == 202, said.text
        log = await collect(owner, conversation_id, until=terminals(1))
        assert log.types[-1] == "run.paused", log.types
        await self.server.idle()
        return (
            conversation_id,
            log.of("tool_call.interrupted")[0]["tool_call"],
            str(log.frames[-1].id),
        )

    async def decide(self, who: str, call_id: str, **body: Any) -> httpx.Response:
        return await self.clients[who].post(f"/api/tool-calls/{call_id}/decision", json=body)

    async def rules(self, **fields: Any) -> None:
        response = await self.clients["boss"].patch("/api/employees/assistant", json=fields)
        assert response.status_code == 200, response.text

    def notes(self) -> list[str]:
        """Notes added so far (the script's n-th call adds ``note n``)."""
        return sorted(text for _, text in stored_notes(self.server.services.db))


def _add(text: str) -> Any:
    return scripted_message("Adding.", ("notes_add", {"text": text}))


@pytest.fixture
async def office(make_settings: Any) -> AsyncIterator[Office]:
    settings: Settings = make_settings()
    db = Database(settings.database_url)
    tokens = {}
    for name, role in (("boss", "admin"), ("owner", "member"), ("ana", "member")):
        tokens[name] = create_user(db, name, role)[1]
    for name in ("ben", "eve"):
        tokens[name] = create_user(db, name, "member")[1]
    add_member(db, "finance", "ben")
    db.dispose()
    script: list[Any] = []
    for i in range(6):
        script += [_add(f"note {i}"), "Done."]
    model = ScriptedChatModel(responses=script)
    headers = {"Authorization": f"Bearer {tokens['boss']}"}
    async with live_server(settings, model=model, headers=headers) as server:
        clients = {}
        for name, token in tokens.items():
            clients[name] = server.signed_in(token)
        try:
            office = Office(server=server, clients=clients)
            await office.rules(approvers=["ana", "group:finance"])
            yield office
        finally:
            for client in clients.values():
                await client.aclose()
