"""Load skill folders into a tool registry.

A skill is a folder ``<dir>/<skill>/`` with a ``SKILL.md`` (YAML front matter between ``---``
lines with ``name`` and ``description``, then instructions in Markdown) and a ``tools.py``
whose module-level :class:`~interlock.tools.Tool` objects (made with ``@tool``) are registered.
A skill that fails to load is reported as ``failed`` and skipped; the others still load.
"""

from __future__ import annotations

import importlib.util
import logging
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

import yaml

from interlock.tools import Tool, ToolRegistrationError, ToolRegistry

logger = logging.getLogger(__name__)

SKILL_FILE = "SKILL.md"
TOOLS_FILE = "tools.py"
MODULE_PREFIX = "interlock_skill_"
"""Skill modules are imported as ``interlock_skill_<name>`` (non-identifier characters -> ``_``)."""

SKILL_NAME_RE = re.compile(r"[a-z0-9_-]+")
"""A skill name (full match): one tool-name segment, since skills namespace their tools
(``notes`` -> ``notes.add``)."""


class SkillError(Exception):
    """A skill folder cannot be loaded; ``str(exc)`` is the reason."""


@dataclass(frozen=True)
class LoadedSkill:
    """The outcome of loading one skill folder.

    Attributes:
        name: The skill's name (front matter ``name``, else the folder name).
        status: ``loaded``, or ``failed`` (nothing of it was registered).
        error: Why it failed (``"ImportError: ..."``, a registration reason...), else None.
        description: Front matter ``description`` ("" when absent).
        instructions: The Markdown body of ``SKILL.md`` after the front matter.
        tools: Names of the tools it registered, sorted.
        path: The skill's folder.
    """

    name: str
    status: Literal["loaded", "failed"]
    error: str | None = None
    description: str = ""
    instructions: str = ""
    tools: tuple[str, ...] = ()
    path: Path | None = None


def load_skills(registry: ToolRegistry, dirs: list[Path]) -> list[LoadedSkill]:
    """Load every skill folder found directly under each of ``dirs`` into ``registry``.

    A skill folder is a sub-folder holding ``SKILL.md`` or ``tools.py`` (names starting with
    ``.`` or ``_`` are skipped), taken in name order, ``dirs`` in the order given; a missing
    directory is logged and skipped. A skill's tools are registered all or none
    (:meth:`ToolRegistry.register_many`). A later skill with an already loaded name fails.

    Args:
        registry: Where the tools go.
        dirs: Directories holding skill folders (e.g. the built-in ``skills/`` then
            ``settings.skills_path``).

    Returns:
        One :class:`LoadedSkill` per skill folder, loaded or failed, in load order. Failures
        are also logged as warnings; none is raised.
    """
    results: list[LoadedSkill] = []
    loaded: dict[str, Path] = {}
    for base in dirs:
        if not base.is_dir():
            logger.warning("Skill directory %s does not exist; skipped.", base)
            continue
        for folder in sorted(base.iterdir()):
            if folder.name.startswith((".", "_")) or not folder.is_dir():
                continue
            if not (folder / SKILL_FILE).is_file() and not (folder / TOOLS_FILE).is_file():
                continue
            result = _load_one(registry, folder, loaded)
            if result.status == "loaded":
                loaded[result.name] = folder
                logger.info("Loaded skill %r with tools %s.", result.name, list(result.tools))
            else:
                logger.warning(
                    "Skill %r (%s) failed to load: %s", result.name, folder, result.error
                )
            results.append(result)
    return results


def _load_one(registry: ToolRegistry, folder: Path, loaded: dict[str, Path]) -> LoadedSkill:
    name = folder.name
    try:
        meta, instructions = read_skill_file(folder / SKILL_FILE)
        name = meta.get("name", name)
        if not isinstance(name, str) or not SKILL_NAME_RE.fullmatch(name):
            raise SkillError(
                f"name {name!r} must be lowercase letters, digits, '_' and '-' (no dots)"
            )
        description = meta.get("description", "")
        if not isinstance(description, str):
            raise SkillError("description in SKILL.md front matter must be a string")
        if name in loaded:
            raise SkillError(f"duplicate skill name: already loaded from {loaded[name]}")
        tools: list[Tool] = []
        if (folder / TOOLS_FILE).is_file():
            module = _import_tools(name, folder / TOOLS_FILE)
            tools = module_tools(module)
            try:
                registry.register_many(tools)
            except ToolRegistrationError as exc:
                sys.modules.pop(module.__name__, None)
                raise SkillError(str(exc)) from None
    except SkillError as exc:
        return LoadedSkill(name=str(name), status="failed", error=str(exc), path=folder)
    return LoadedSkill(
        name=name,
        status="loaded",
        description=description.strip(),
        instructions=instructions.strip(),
        tools=tuple(sorted(t.name for t in tools)),
        path=folder,
    )


def read_skill_file(path: Path) -> tuple[dict[str, Any], str]:
    """Read ``SKILL.md``: its YAML front matter and its Markdown body.

    Args:
        path: The file; a missing file reads as no front matter and no body.

    Returns:
        ``(front_matter, body)``; ``({}, text)`` when the file has no front matter.

    Raises:
        SkillError: When the file cannot be read as UTF-8, the front matter is not closed by a
            ``---`` line, is not valid YAML, or is not a mapping.
    """
    if not path.is_file():
        return {}, ""
    try:
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillError(f"cannot read {path.name}: {exc}") from None
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, text
    for index in range(1, len(lines)):
        if lines[index].strip() == "---":
            break
    else:
        raise SkillError(f"{path.name} front matter has no closing '---' line")
    try:
        meta = yaml.safe_load("".join(lines[1:index]))
    except yaml.YAMLError as exc:
        raise SkillError(f"{path.name} front matter is not valid YAML: {exc}") from None
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise SkillError(f"{path.name} front matter must be a YAML mapping")
    return meta, "".join(lines[index + 1 :])


def _import_tools(skill_name: str, path: Path) -> ModuleType:
    """Import ``tools.py`` as module ``interlock_skill_<name>`` (replacing an earlier import).

    Raises:
        SkillError: ``"<ExceptionType>: <text>"`` when importing raises (syntax errors and
            ``SystemExit`` included).
    """
    module_name = MODULE_PREFIX + re.sub(r"\W", "_", skill_name)
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise SkillError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        if sys.modules.get(module_name) is module:
            del sys.modules[module_name]
        raise SkillError(f"{TOOLS_FILE} failed to import: {type(exc).__name__}: {exc}") from None
    return module


def module_tools(module: ModuleType) -> list[Tool]:
    """Return the :class:`Tool` objects bound at module level, each once, in definition order."""
    seen: set[int] = set()
    tools: list[Tool] = []
    for value in vars(module).values():
        if isinstance(value, Tool) and id(value) not in seen:
            seen.add(id(value))
            tools.append(value)
    return tools
