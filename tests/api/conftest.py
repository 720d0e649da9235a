"""API fixtures: a live server on loopback over each storage backend, with the offline model."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from interlock.settings import Settings
from support.live import LiveServer, live_server


@pytest.fixture
def api_settings(db_url: str, tmp_path: Path) -> Settings:
    """Settings for an API test: migrated ``db_url``, offline model, no web client."""
    return Settings(_env_file=None, database_url=db_url, client_dist=tmp_path / "no-client")  # type: ignore[call-arg]


@pytest.fixture
async def server(api_settings: Settings) -> AsyncIterator[LiveServer]:
    """A live server with the offline model."""
    async with live_server(api_settings) as live:
        yield live
