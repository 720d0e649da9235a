"""The skill catalog: every skill folder's outcome, looked up by skill, tool and command."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from interlock.settings import Settings
from interlock.skills.builtin_tools import load_skill_tool
from interlock.skills.loader import Skill, find_skill_folders, load_skill_folders
from interlock.skills.manifest import SlashCommand
from interlock.tools import ToolRegistry


class SkillCatalog:
    """The skills of one server (or one ``interlock skills check``).

    Attributes:
        skills: By name, in load order, loaded and failed. A name has one entry: a loaded
            skill wins over a failed folder of the same name, else the first one.
        all: Every folder's outcome in load order, including failed duplicates of a name.
    """

    def __init__(self, skills: Iterable[Skill] = ()) -> None:
        self.skills: dict[str, Skill] = {}
        self.all: list[Skill] = []
        self._tool_skill: dict[str, str] = {}
        for skill in skills:
            self.add(skill)

    def add(self, skill: Skill) -> None:
        """Add a loader result (used while loading)."""
        self.all.append(skill)
        current = self.skills.get(skill.name)
        if current is None or (current.status == "failed" and skill.status == "loaded"):
            self.skills[skill.name] = skill
        if skill.status == "loaded":
            for tool in skill.tools:
                self._tool_skill[tool] = skill.name

    def get(self, name: str) -> Skill | None:
        """Return the skill named ``name`` (loaded or failed), or None."""
        return self.skills.get(name)

    def loaded(self) -> list[Skill]:
        """Return the loaded skills, in load order."""
        return [s for s in self.skills.values() if s.status == "loaded"]

    def skill_of_tool(self, tool_name: str) -> str | None:
        """Return the name of the loaded skill owning ``tool_name`` (None: core or unknown)."""
        return self._tool_skill.get(tool_name)

    def commands(self) -> list[tuple[Skill, SlashCommand]]:
        """Return every slash command of the loaded skills, in load and declaration order."""
        return [(s, c) for s in self.loaded() for c in s.commands]

    def commands_named(self, command: str) -> list[tuple[Skill, SlashCommand]]:
        """Return the loaded skills declaring ``/command`` with the declaration (0, 1 or more)."""
        return [(s, c) for s, c in self.commands() if c.command == command]


def load_catalog(registry: ToolRegistry, dirs: Sequence[Path], settings: Settings) -> SkillCatalog:
    """Register the core ``load_skill`` tool, then load every skill folder under ``dirs``.

    Never raises for a broken skill: it is in the catalog as ``failed`` with its problems.

    Args:
        registry: Where the tools go.
        dirs: Directories holding skill folders, e.g. ``[settings.builtin_skills_dir,
            *settings.skills_path]`` (see :func:`interlock.skills.loader.find_skill_folders`).
        settings: Server settings (declarative tools read connections from them).

    Returns:
        The catalog; the ``load_skill`` tool answers from it.

    Raises:
        ToolRegistrationError: When ``registry`` already has a ``load_skill`` tool (a catalog
            per registry).
    """
    return catalog_from_folders(registry, find_skill_folders(dirs), settings)


def catalog_from_folders(
    registry: ToolRegistry, folders: Sequence[Path], settings: Settings
) -> SkillCatalog:
    """As :func:`load_catalog`, for explicit skill folders (``interlock skills check``)."""
    catalog = SkillCatalog()
    registry.register(load_skill_tool(catalog, registry))
    load_skill_folders(registry, folders, settings, on_skill=catalog.add)
    return catalog


def skill_out(skill: Skill) -> dict[str, Any]:
    """Return the ``GET /api/skills`` item of ``skill``.

    Returns:
        ``{"name", "description", "version", "tags", "status", "error", "tools": [names],
        "commands": [{"command", "title", "description", "tool"}], "path": str}``.
    """
    return {
        "name": skill.name,
        "description": skill.description,
        "version": skill.version,
        "tags": list(skill.tags),
        "status": skill.status,
        "error": skill.error,
        "tools": list(skill.tools),
        "commands": [
            {
                "command": c.command,
                "title": c.title,
                "description": c.description,
                "tool": c.tool,
            }
            for c in skill.commands
        ],
        "path": str(skill.path),
    }
