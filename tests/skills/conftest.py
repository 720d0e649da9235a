"""Fixtures for skill tests: the built-in skills in a registry, and a notes database."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from sqlmodel import SQLModel

from interlock.settings import REPO_ROOT
from interlock.skills import load_skills
from interlock.skills.loader import MODULE_PREFIX
from interlock.storage import Database
from interlock.tools import ToolContext, ToolRegistry

BUILTIN_SKILLS = REPO_ROOT / "skills"


@pytest.fixture(autouse=True)
def _forget_skill_modules() -> Iterator[None]:
    """Remove the ``interlock_skill_*`` modules a test imported, so tests stay independent."""
    before = {name for name in sys.modules if name.startswith(MODULE_PREFIX)}
    yield
    for name in [n for n in sys.modules if n.startswith(MODULE_PREFIX) and n not in before]:
        del sys.modules[name]


@pytest.fixture
def builtin_registry() -> ToolRegistry:
    """A registry holding the built-in skills' tools (every one must load)."""
    registry = ToolRegistry()
    skills = load_skills(registry, [BUILTIN_SKILLS])
    assert [s.error for s in skills if s.status != "loaded"] == []
    return registry


@pytest.fixture
def notes_db(tmp_path) -> Iterator[Database]:
    """A SQLite file database with every table, in the test's ``tmp_path``."""
    db = Database(f"sqlite:///{tmp_path / 'notes.db'}")
    SQLModel.metadata.create_all(db.engine)
    yield db
    db.dispose()


@pytest.fixture
def context_for(notes_db):
    """Return ``context_for(user_id) -> ToolContext`` on ``notes_db``."""

    def make(user_id: str) -> ToolContext:
        return ToolContext(
            user_id=user_id, conversation_id="conv_1", tool_call_id="call_1", db=notes_db
        )

    return make
