"""Load skill folders into a tool registry.

A skill is a folder ``<dir>/<skill>/`` with a ``SKILL.md`` (YAML front matter, see
:class:`~interlock.skills.manifest.SkillManifest`, then Markdown instructions), an optional
``tools.py`` whose module-level :class:`~interlock.tools.Tool` objects (made with ``@tool``)
are the skill's Python tools, and an optional ``tools.yaml`` of declarative tools (like the
front matter's ``tools:``). Everything wrong with a folder is collected as
:class:`~interlock.skills.manifest.Problem` s; a skill with any problem is ``failed`` and
registers nothing, and no problem ever raises out of the loader.
"""

from __future__ import annotations

import logging
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from interlock.settings import Settings
from interlock.skills.manifest import (
    ParsedSkillFile,
    Problem,
    SkillManifest,
    SlashCommand,
    YamlSource,
    parse_skill_file,
    parse_tools_yaml,
)
from interlock.skills.sources import (
    MODULE_PREFIX,
    StagedTool,
    bare_langchain_problems,
    collision_problems,
    declarative_tools,
    import_tools,
    module_tools,
    python_tools,
    registration_error_problem,
    rule_problems,
    template_problems,
)
from interlock.tools import Tool, ToolRegistrationError, ToolRegistry

logger = logging.getLogger(__name__)

SKILL_FILE = "SKILL.md"
TOOLS_FILE = "tools.py"
TOOLS_YAML = "tools.yaml"
SKILL_FILES = (SKILL_FILE, TOOLS_FILE, TOOLS_YAML)
__all__ = [
    "MODULE_PREFIX",
    "Skill",
    "SkillLoader",
    "find_skill_folders",
    "is_skill_folder",
    "load_skill_folders",
    "load_skills",
    "module_tools",
]


@dataclass(frozen=True)
class Skill:
    """The outcome of loading one skill folder.

    Attributes:
        name: Front matter ``name`` (the folder name when it is missing or invalid).
        description: Front matter ``description`` ("" when failed before it was read).
        status: ``loaded``, or ``failed`` (nothing of it was registered).
        path: The skill's folder.
        version: Front matter ``version``.
        tags: Front matter ``tags``.
        instructions: The Markdown body of ``SKILL.md`` (what the model gets when active).
        tools: Names of its registered tools, sorted (empty when failed).
        commands: Its slash commands (empty when failed).
        error: ``"SKILL.md:3: unknown key 'foo'; ..."`` (every problem, file names relative
            to the folder) when failed, else None.
        problems: Every problem, with full file paths (empty when loaded).
    """

    name: str
    description: str
    status: Literal["loaded", "failed"]
    path: Path
    version: str | None = None
    tags: tuple[str, ...] = ()
    instructions: str = ""
    tools: tuple[str, ...] = ()
    commands: tuple[SlashCommand, ...] = ()
    error: str | None = None
    problems: list[Problem] = field(default_factory=list)


def is_skill_folder(path: Path) -> bool:
    """Return whether ``path`` is a folder holding ``SKILL.md``, ``tools.py`` or ``tools.yaml``."""
    return path.is_dir() and any((path / name).is_file() for name in SKILL_FILES)


def find_skill_folders(dirs: Iterable[Path]) -> list[Path]:
    """Return the skill folders directly under each of ``dirs``, each in name order.

    Sub-folders whose name starts with ``.`` or ``_`` are skipped, as are folders without
    skill files. A missing directory is logged and skipped.
    """
    folders: list[Path] = []
    for base in dirs:
        if not base.is_dir():
            logger.warning("Skill directory %s does not exist; skipped.", base)
            continue
        for folder in sorted(base.iterdir()):
            if not folder.name.startswith((".", "_")) and is_skill_folder(folder):
                folders.append(folder)
    return folders


def load_skills(
    registry: ToolRegistry, dirs: Sequence[Path], settings: Settings | None = None
) -> list[Skill]:
    """Load every skill folder found under ``dirs`` (see :func:`find_skill_folders`).

    Prefer :func:`interlock.skills.load_catalog`, which also registers ``load_skill``.

    Returns:
        One :class:`Skill` per folder, in load order.
    """
    return load_skill_folders(registry, find_skill_folders(dirs), settings)


def load_skill_folders(
    registry: ToolRegistry,
    folders: Sequence[Path],
    settings: Settings | None = None,
    *,
    on_skill: Callable[[Skill], None] | None = None,
) -> list[Skill]:
    """Load the given skill folders, in order, into ``registry``; never raises for a skill.

    A skill whose name is already loaded fails; a failed skill does not reserve its name.

    Args:
        registry: Where the tools go (all of a skill's tools, or none).
        folders: Skill folders.
        settings: For declarative tools (connections, allowed hosts); None reads
            ``Settings()`` when a declarative tool needs it.
        on_skill: Called with each result as soon as it is known.

    Returns:
        One :class:`Skill` per folder, in order. Failures are also logged as warnings.
    """
    results: list[Skill] = []
    loaded: dict[str, Path] = {}
    for folder in folders:
        skill = SkillLoader(registry, folder, settings, loaded).load()
        if skill.status == "loaded":
            loaded[skill.name] = folder
            logger.info("Loaded skill %r with tools %s.", skill.name, list(skill.tools))
        else:
            logger.warning("Skill %r (%s) failed to load: %s", skill.name, folder, skill.error)
        results.append(skill)
        if on_skill is not None:
            on_skill(skill)
    return results


class SkillLoader:
    """Loads one skill folder: collects its problems, registers its tools when there are none.

    Args:
        registry: Target registry.
        folder: The skill folder.
        settings: For declarative tools; None reads ``Settings()`` when needed.
        loaded: Names of skills already loaded, and their folders.
    """

    def __init__(
        self,
        registry: ToolRegistry,
        folder: Path,
        settings: Settings | None,
        loaded: dict[str, Path],
    ) -> None:
        self.registry = registry
        self.folder = folder
        self.settings = settings
        self.loaded = loaded
        self.problems: list[Problem] = []
        self.staged: list[StagedTool] = []
        self.module_name: str | None = None

    def problem(self, file: Path, line: int, reason: str) -> None:
        """Record a problem."""
        self.problems.append(Problem(file, max(line, 1), reason))

    def load(self) -> Skill:
        """Load the folder; return the skill, ``loaded`` or ``failed``."""
        try:
            return self._load()
        except Exception as exc:  # a loader bug must not stop the server
            logger.exception("Loading skill folder %s raised", self.folder)
            self.problem(self.folder / SKILL_FILE, 1, f"internal error: {exc!r}")
            return self._failed(self.folder.name, None)

    def _load(self) -> Skill:
        parsed = parse_skill_file(self.folder / SKILL_FILE)
        self.problems.extend(parsed.problems)
        manifest = parsed.manifest
        name = manifest.name if manifest is not None else _fallback_name(parsed, self.folder)
        if manifest is not None and name in self.loaded:
            where = parsed.source.line(["name"])
            self.problem(
                parsed.source.file,
                where,
                f"skill name '{name}' is already used by the skill at {self.loaded[name]}",
            )
        if (self.folder / TOOLS_FILE).is_file():
            self._python_tools(name, self.folder / TOOLS_FILE)
        if manifest is not None:
            self._declarative_tools(name, manifest.tools, parsed.source, ["tools"])
        if (self.folder / TOOLS_YAML).is_file():
            specs, source, problems = parse_tools_yaml(self.folder / TOOLS_YAML)
            self.problems.extend(problems)
            self._declarative_tools(name, specs, source, [])
        if manifest is not None:
            self._apply_manifest(manifest, parsed.source)
        self.problems.extend(collision_problems(self.registry, self.staged))
        if self.problems or manifest is None:
            # Failed anyway: also report every tool breaking a registration rule.
            self.problems.extend(rule_problems(self.registry, self.staged))
            return self._failed(name, manifest)
        try:
            self.registry.register_many(s.tool for s in self.staged)
        except ToolRegistrationError as exc:
            # register_many stops at the first broken rule; report every one.
            self.problems.extend(rule_problems(self.registry, self.staged))
            if not self.problems:
                fallback = self.folder / SKILL_FILE
                self.problems.append(registration_error_problem(exc, self.staged, fallback))
            return self._failed(name, manifest)
        return self._loaded(manifest, parsed.body)

    def _loaded(self, manifest: SkillManifest, body: str) -> Skill:
        return Skill(
            name=manifest.name,
            description=manifest.description,
            status="loaded",
            path=self.folder,
            version=manifest.version,
            tags=tuple(manifest.tags),
            instructions=body,
            tools=tuple(sorted(s.tool.name for s in self.staged)),
            commands=tuple(manifest.commands),
        )

    def _failed(self, name: str, manifest: SkillManifest | None) -> Skill:
        if self.module_name is not None:
            sys.modules.pop(self.module_name, None)
        self.problems.sort(key=lambda p: (str(p.file), p.line))
        error = "; ".join(
            f"{_short(p.file, self.folder)}:{p.line}: {p.reason}" for p in self.problems
        )
        return Skill(
            name=name,
            description=manifest.description if manifest is not None else "",
            status="failed",
            path=self.folder,
            version=manifest.version if manifest is not None else None,
            tags=tuple(manifest.tags) if manifest is not None else (),
            error=error,
            problems=list(self.problems),
        )

    # -- tools -------------------------------------------------------------------------------

    def _python_tools(self, name: str, path: Path) -> None:
        module, problems = import_tools(name, path)
        self.problems.extend(problems)
        if module is not None:
            self.module_name = module.__name__
            staged = python_tools(module, path)
            self.staged.extend(staged)
            self.problems.extend(bare_langchain_problems(module, path, staged))

    def _declarative_tools(
        self,
        name: str,
        specs: list[dict[str, Any]],
        source: YamlSource,
        base: list[str | int],
    ) -> None:
        if not specs:
            return
        staged, problems = declarative_tools(
            specs,
            skill=name,
            settings=self.settings if self.settings is not None else Settings(),
            source=source,
            base=base,
        )
        self.staged.extend(staged)
        self.problems.extend(problems)

    # -- manifest ----------------------------------------------------------------------------

    def _apply_manifest(self, manifest: SkillManifest, source: YamlSource) -> None:
        """Check tool names and references; apply permissions, cards and approval rules; set
        ``tool.skill`` and add the skill's ``tags`` to each tool's own."""
        name = manifest.name
        tools = {s.tool.name: s.tool for s in self.staged}
        for staged in self.staged:
            tool_name = staged.tool.name
            if isinstance(tool_name, str) and not (
                tool_name == name or tool_name.startswith(f"{name}.")
            ):
                self.problem(
                    staged.file,
                    staged.line,
                    f"tool '{tool_name}' must be named '{name}' or start with '{name}.'",
                )
            staged.tool.skill = name
            if isinstance(staged.tool.tags, tuple | list):
                staged.tool.tags = (*staged.tool.tags, *manifest.tags)
        for key, values in (
            ("permissions", manifest.permissions),
            ("cards", manifest.cards),
            ("approvals", manifest.approvals),
        ):
            for tool_name in values:
                if tool_name not in tools:
                    self.problem(
                        source.file,
                        source.line([key, tool_name]),
                        f"{key}: '{tool_name}' is not a tool of skill '{name}'"
                        f" (its tools: {', '.join(sorted(tools)) or 'none'})",
                    )
        for tool_name, permission in manifest.permissions.items():
            if tool_name in tools:
                tools[tool_name].permission = permission
        for tool_name, card in manifest.cards.items():
            if tool_name in tools:
                tools[tool_name].card = card
        for tool_name, rule in manifest.approvals.items():
            if tool_name in tools:
                tool = tools[tool_name]
                if rule.timeout_s is not None:
                    tool.approval_timeout_s = rule.timeout_s
                if rule.require_approver is not None:
                    tool.require_approver = rule.require_approver
                if rule.approvals_required is not None:
                    tool.approvals_required = rule.approvals_required
        self._check_commands(manifest, source, tools)

    def _check_commands(
        self, manifest: SkillManifest, source: YamlSource, tools: dict[str, Tool]
    ) -> None:
        first: dict[str, int] = {}
        for index, command in enumerate(manifest.commands):
            line = source.line(["commands", index, "command"])
            if command.command in first:
                self.problem(
                    source.file,
                    line,
                    f"slash command clash: /{command.command} is declared twice in this skill "
                    f"(first on line {first[command.command]})",
                )
            else:
                first[command.command] = line
            tool = tools.get(command.tool)
            if tool is None:
                self.problem(
                    source.file,
                    source.line(["commands", index, "tool"]),
                    f"command /{command.command} is bound to unknown tool '{command.tool}' "
                    f"(tools of skill '{manifest.name}': {', '.join(sorted(tools)) or 'none'})",
                )
                continue
            at: list[str | int] = ["commands", index]
            if command.args is not None:
                at.append("args")
            for reason in template_problems(command, tool):
                self.problem(source.file, source.line(at), reason)


def _fallback_name(parsed: ParsedSkillFile, folder: Path) -> str:
    raw = parsed.raw_name
    return raw if raw is not None and re.fullmatch(r"[a-z0-9_-]+", raw) else folder.name


def _short(file: Path, folder: Path) -> str:
    try:
        return str(file.relative_to(folder))
    except ValueError:
        return str(file)
