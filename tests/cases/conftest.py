"""Fixtures for the case tests (``../shared/cases/cases.md``): settings for a live server.

Every test here runs once on SQLite and once on PostgreSQL (through ``db_url``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from interlock.settings import Settings

SettingsMaker = Callable[..., Settings]


@pytest.fixture
def make_settings(db_url: str, tmp_path: Path) -> SettingsMaker:
    """Build settings on the migrated ``db_url`` (no web client); keyword overrides apply."""

    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "database_url": db_url,
            "client_dist": tmp_path / "no-client",
            **overrides,
        }
        return Settings(_env_file=None, **values)

    return make


@pytest.fixture
def case_settings(make_settings: SettingsMaker) -> Settings:
    """Default settings for a case test."""
    return make_settings()
