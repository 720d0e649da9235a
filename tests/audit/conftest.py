"""Fixtures for the audit tests (each runs on SQLite and PostgreSQL), and their people."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from interlock.settings import Settings
from interlock.storage import Database, User
from interlock.storage.users import create_user
from support.live import LiveServer


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> str:
    """Name of the database backend of this test case: ``sqlite`` or ``postgresql``."""
    return str(request.param)


def bearer(token: str, client: str | None = None) -> dict[str, str]:
    """Headers of a request signed in with ``token`` (from the web client when ``client``)."""
    headers = {"Authorization": f"Bearer {token}"}
    return {**headers, "X-Interlock-Client": client} if client else headers


@dataclass(frozen=True)
class People:
    """Ann and Bob (members) and root (an admin): their users, tokens and request headers."""

    ann: User
    bob: User
    ann_token: str
    headers: dict[str, dict[str, str]]


def three_people(settings: Settings) -> People:
    """Create ann, bob and root (an admin) in the database of ``settings``."""
    db = Database(settings.database_url)
    try:
        ann, ann_token = create_user(db, "ann")
        bob, bob_token = create_user(db, "bob")
        _root, root_token = create_user(db, "root", role="admin")
    finally:
        db.dispose()
    tokens = {"ann": ann_token, "bob": bob_token, "root": root_token}
    return People(ann, bob, ann_token, {name: bearer(t) for name, t in tokens.items()})


async def get_json(server: LiveServer, path: str, headers: dict[str, str], **params: Any) -> Any:
    """GET ``path`` (answered 200) and return its JSON; ``params`` join a query in ``path``."""
    response = await server.client.get(path, params=params or None, headers=headers)
    assert response.status_code == 200, response.text
    return response.json()
