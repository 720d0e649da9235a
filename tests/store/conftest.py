"""Fixtures for the store and undo tests: each runs on SQLite and PostgreSQL."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest) -> str:
    """Name of the database backend of this test case: ``sqlite`` or ``postgresql``."""
    return str(request.param)
