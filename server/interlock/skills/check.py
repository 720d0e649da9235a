"""``interlock skills check``: load skill folders into a fresh registry and list every problem.

The check loads exactly as the server does (:func:`~interlock.skills.catalog_from_folders`,
so the core ``load_skill`` tool is there too), then adds what only matters across skills: a
slash command declared by two checked skills (the server would answer
``slash_command_ambiguous`` to a bare ``/command``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from interlock.settings import Settings
from interlock.skills.catalog import SkillCatalog, catalog_from_folders
from interlock.skills.loader import SKILL_FILE, Skill, find_skill_folders, is_skill_folder
from interlock.skills.manifest import Problem, parse_skill_file
from interlock.tools import ToolRegistry


@dataclass
class CheckReport:
    """What :func:`check_skills` found.

    Attributes:
        catalog: The checked skills as loaded (the registry holds their tools).
        registry: The fresh registry they were loaded into.
        problems: Every problem, skill by skill (file, then line), then command clashes.
    """

    catalog: SkillCatalog
    registry: ToolRegistry
    problems: list[Problem] = field(default_factory=list)
    context: set[Path] = field(default_factory=set)

    @property
    def skills(self) -> list[Skill]:
        """Every checked skill folder's outcome, in load order (context skills left out)."""
        return [s for s in self.catalog.all if s.path.resolve() not in self.context]

    @property
    def ok(self) -> bool:
        """True when there is no problem."""
        return not self.problems


def default_paths(settings: Settings) -> list[Path]:
    """The built-in skills folder, then ``settings.skills_path``."""
    return [settings.builtin_skills_dir, *settings.skills_path]


def check_skills(paths: Sequence[Path], settings: Settings) -> CheckReport:
    """Check skill folders.

    Args:
        paths: Each a folder of skill folders, or one skill folder (holding ``SKILL.md``,
            ``tools.py`` or ``tools.yaml``). A folder given twice is checked once.
        settings: For the registry's limits and declarative tools.

    Returns:
        The report; a path that is not a directory is a problem.
    """
    problems: list[Problem] = []
    folders: list[Path] = []
    seen: set[Path] = set()
    for path in paths:
        if not path.is_dir():
            problems.append(Problem(path, 1, "no such directory"))
            continue
        for folder in [path] if is_skill_folder(path) else find_skill_folders([path]):
            key = folder.resolve()
            if key not in seen:
                seen.add(key)
                folders.append(folder)
    # The built-in skills always load on a server: load them first as context, so a name or
    # slash command clashing with them is reported, but only report the folders asked for.
    context = [
        f for f in find_skill_folders([settings.builtin_skills_dir]) if f.resolve() not in seen
    ]
    context_keys = {f.resolve() for f in context}
    registry = ToolRegistry(
        max_result_chars=settings.max_tool_result_chars,
        default_timeout_s=settings.tool_timeout_s,
    )
    catalog = catalog_from_folders(registry, [*context, *folders], settings)
    for skill in catalog.all:
        if skill.path.resolve() not in context_keys:
            problems.extend(skill.problems)
    problems.extend(
        p for p in command_clashes(catalog) if p.file.parent.resolve() not in context_keys
    )
    return CheckReport(catalog=catalog, registry=registry, problems=problems, context=context_keys)


def command_clashes(catalog: SkillCatalog) -> list[Problem]:
    """Report each slash command declared by more than one loaded skill.

    The first skill (in load order) keeps the command; every later declaration is a problem
    ``slash command clash: /notes is also declared by skill 'notes'`` at its line.
    """
    owners: dict[str, str] = {}
    problems: list[Problem] = []
    for skill in catalog.loaded():
        source = None
        for index, command in enumerate(skill.commands):
            owner = owners.setdefault(command.command, skill.name)
            if owner == skill.name:
                continue
            if source is None:
                source = parse_skill_file(skill.path / SKILL_FILE).source
            problems.append(
                Problem(
                    skill.path / SKILL_FILE,
                    source.line(["commands", index, "command"]),
                    f"slash command clash: /{command.command} is also declared by skill '{owner}'",
                )
            )
    return problems


def format_problem(problem: Problem, cwd: Path | None = None) -> str:
    """Return ``file:line: reason``, the file relative to ``cwd`` (default: the current
    directory) when it is inside it."""
    base = (cwd or Path.cwd()).absolute()
    file = problem.file.absolute()
    try:
        shown = file.relative_to(base)
    except ValueError:
        shown = file
    return f"{shown}:{problem.line}: {problem.reason}"
