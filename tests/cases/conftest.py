"""Fixtures for the cases tests (``make_settings`` comes from ``tests/conftest.py``)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator

import pytest

from interlock.settings import Settings
from support.mcp_fixtures import ctx, make_sources, remote

__all__ = ["ctx", "make_sources", "remote"]  # C19: a remote MCP server and Interlock's side

SettingsMaker = Callable[..., Settings]


@pytest.fixture
def case_settings(make_settings: SettingsMaker) -> Settings:
    """Default settings for a case test (``../shared/cases/cases.md``); each runs on SQLite and PostgreSQL."""
    return make_settings()


@pytest.fixture
def server_log(caplog: pytest.LogCaptureFixture) -> Iterator[pytest.LogCaptureFixture]:
    """Capture the server's log, uvicorn's (which does not propagate) included."""
    caplog.set_level(logging.WARNING)
    uvicorn_logger = logging.getLogger("uvicorn")
    uvicorn_logger.addHandler(caplog.handler)
    try:
        yield caplog
    finally:
        uvicorn_logger.removeHandler(caplog.handler)
