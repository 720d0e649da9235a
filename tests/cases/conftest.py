"""Fixtures for the cases tests (``make_settings`` comes from ``tests/conftest.py``)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from interlock.settings import Settings
from support.mcp_fixtures import ctx, make_sources, remote

__all__ = ["ctx", "make_sources", "remote"]  # C19: a remote MCP server and Interlock's side

SettingsMaker = Callable[..., Settings]


@pytest.fixture
def case_settings(make_settings: SettingsMaker) -> Settings:
    """Default settings for a case test (``../shared/cases/cases.md``); each runs on SQLite and PostgreSQL."""
    return make_settings()
