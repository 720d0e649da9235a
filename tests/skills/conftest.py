"""Fixtures for skill tests: skill folders on disk, the built-in skills, a notes database."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from textwrap import dedent

import pytest
from sqlmodel import SQLModel

from interlock.settings import REPO_ROOT, Settings
from interlock.skills import SkillCatalog, load_catalog
from interlock.storage import Database
from interlock.tools import ToolContext, ToolRegistry
from support.skill_modules import forget_skill_modules

__all__ = ["forget_skill_modules"]

BUILTIN_SKILLS = REPO_ROOT / "skills"

WriteSkill = Callable[..., Path]


@pytest.fixture
def offline_settings(tmp_path: Path) -> Settings:
    """Settings that read no ``.env`` (declarative tools get them)."""
    return Settings(_env_file=None, database_url=f"sqlite:///{tmp_path / 'unused.db'}")


def write_skill_folder(
    base: Path,
    folder: str,
    skill_md: str | None = None,
    tools: str | None = None,
    tools_yaml: str | None = None,
) -> Path:
    """Write ``base/folder/`` with the given ``SKILL.md``, ``tools.py``, ``tools.yaml``
    (each dedented; None leaves the file out) and return the folder."""
    path = base / folder
    path.mkdir(parents=True, exist_ok=True)
    for name, text in (("SKILL.md", skill_md), ("tools.py", tools), ("tools.yaml", tools_yaml)):
        if text is not None:
            (path / name).write_text(dedent(text).lstrip("\n"), encoding="utf-8")
    return path


@pytest.fixture
def registry() -> ToolRegistry:
    """An empty tool registry."""
    return ToolRegistry()


@pytest.fixture
def write_skill(tmp_path: Path) -> WriteSkill:
    """``write_skill(folder, skill_md=..., tools=..., tools_yaml=...)`` under ``tmp_path``."""

    def write(folder: str, skill_md: str | None = None, **files: str | None) -> Path:
        return write_skill_folder(tmp_path, folder, skill_md, **files)

    return write


@pytest.fixture
def builtin_catalog(offline_settings: Settings) -> tuple[ToolRegistry, SkillCatalog]:
    """A registry and catalog with the built-in skills (every one must load)."""
    registry = ToolRegistry()
    catalog = load_catalog(registry, [BUILTIN_SKILLS], offline_settings)
    assert [s.error for s in catalog.all if s.status != "loaded"] == []
    return registry, catalog


@pytest.fixture
def builtin_registry(builtin_catalog: tuple[ToolRegistry, SkillCatalog]) -> ToolRegistry:
    """A registry holding the built-in skills' tools (and ``load_skill``)."""
    return builtin_catalog[0]


@pytest.fixture
def notes_db(tmp_path: Path) -> Iterator[Database]:
    """A SQLite file database with every table, in the test's ``tmp_path``."""
    db = Database(f"sqlite:///{tmp_path / 'notes.db'}")
    SQLModel.metadata.create_all(db.engine)
    yield db
    db.dispose()


@pytest.fixture
def context_for(notes_db: Database) -> Callable[[str], ToolContext]:
    """Return ``context_for(user_id) -> ToolContext`` on ``notes_db``."""

    def make(user_id: str) -> ToolContext:
        return ToolContext(
            user_id=user_id, conversation_id="conv_1", tool_call_id="call_1", db=notes_db
        )

    return make
