"""Fixtures of the command-line tests: a SQLite database named by the environment, a stub app."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest
from fastapi import FastAPI

from interlock import cli
from interlock.settings import Settings


@pytest.fixture
def sqlite_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """Point ``INTERLOCK_DATABASE_URL`` at a new SQLite file; run from ``tmp_path``."""
    url = f"sqlite:///{tmp_path / 'var' / 'interlock.db'}"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("INTERLOCK_DATABASE_URL", url)
    return url


@pytest.fixture
def fake_app(monkeypatch: pytest.MonkeyPatch) -> list[Settings | None]:
    """Stand in for ``interlock.api.app``; returns the settings each create_app call got."""
    calls: list[Settings | None] = []

    def create_app(settings: Settings | None = None) -> FastAPI:
        calls.append(settings)
        app = FastAPI(title="Interlock")

        @app.get("/api/health")
        def health() -> dict[str, str]:
            return {"status": "ok"}

        return app

    # uvicorn is stubbed, so the port it would bind is not probed either (8000 may be taken
    # by another server on this machine); test_serve_names_a_taken_port probes a real one.
    monkeypatch.setattr(cli, "refuse_a_taken_port", lambda host, port: None)
    module = types.ModuleType("interlock.api.app")
    module.create_app = create_app  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "interlock.api.app", module)
    return calls
