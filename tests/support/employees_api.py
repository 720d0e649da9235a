"""Fixtures and bodies of the employee API tests: a team of an admin and a member."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from interlock.settings import Settings
from interlock.storage import Database
from interlock.storage.users import create_user
from support.live import LiveServer, live_server


@dataclass
class Team:
    """A live server with an admin client (``server.client``) and a member client."""

    server: LiveServer
    member: httpx.AsyncClient

    @property
    def admin(self) -> httpx.AsyncClient:
        """The admin's client."""
        return self.server.client


@pytest.fixture
async def team(api_settings: Settings) -> AsyncIterator[Team]:
    """A live server, its client an admin's (``boss``), and a member's client (``mia``)."""
    db = Database(api_settings.database_url)
    _admin, admin_token = create_user(db, "boss", "admin")
    _member, member_token = create_user(db, "mia", "member")
    db.dispose()
    admin = {"Authorization": f"Bearer {admin_token}"}
    member = {"Authorization": f"Bearer {member_token}"}
    async with live_server(api_settings, headers=admin) as server:
        async with httpx.AsyncClient(base_url=server.url, headers=member, timeout=15) as client:
            yield Team(server=server, member=client)


def new_employee(slug: str = "chef", **fields: Any) -> dict[str, Any]:
    """The body of a valid new employee ``slug`` (Chef, a cook), with ``fields`` changed."""
    return {
        "slug": slug,
        "name": "Chef",
        "title": "Cook",
        "about": "Plans meals.",
        "system_prompt": "You are Chef.",
        "pinned_skills": ["suggestions"],
        "available_skills": ["ask"],
        "tool_overrides": {"notes.add": "DENY"},
        "greeting": "Hungry?",
        "starter_prompts": ["Plan dinner"],
        **fields,
    }
