"""Fixtures of the API tests: a live server on loopback over each storage backend, with the
offline model (imported by the conftests of tests/api and tests/agui)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest

from interlock.settings import Settings
from support.live import LiveServer, live_server


@pytest.fixture
def api_settings(make_settings: Callable[..., Settings]) -> Settings:
    """Settings for an API test: migrated ``db_url``, offline model, no web client."""
    return make_settings()


@pytest.fixture
async def server(api_settings: Settings) -> AsyncIterator[LiveServer]:
    """A live server with the offline model."""
    async with live_server(api_settings) as live:
        yield live
