"""Fixtures for the event-stream tests: settings on each backend, with a live server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from interlock.settings import Settings


@pytest.fixture
def make_settings(db_url: str, tmp_path: Path) -> Callable[..., Settings]:
    """Settings on the migrated ``db_url``, offline model, no web client, plus overrides."""

    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "database_url": db_url,
            "client_dist": tmp_path / "no-client",
            **overrides,
        }
        return Settings(_env_file=None, **values)  # type: ignore[call-arg]

    return make
