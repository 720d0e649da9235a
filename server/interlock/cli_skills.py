"""``interlock skills``: check the skill folders and list what they hold.

The same loading as the server's (:mod:`interlock.skills.check`), into a fresh registry, so a
broken skill is found before the server starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from interlock.cli_common import load_settings

skills_app = typer.Typer(help="Skill folders: check and list them.", no_args_is_help=True)


@skills_app.command("check")
def skills_check(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Folders of skill folders, or skill folders; default: the built-in skills "
            "and INTERLOCK_SKILLS_PATH.",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Load skills into a fresh registry; print each problem as `file:line: reason`.

    Exits 0 and prints `N skills OK` when there is no problem, else exits 1.
    """
    from interlock.skills.check import check_skills, default_paths, format_problem

    settings = load_settings()
    report = check_skills(paths or default_paths(settings), settings)
    for problem in report.problems:
        typer.echo(format_problem(problem))
    count = len(report.skills)
    noun = "skill" if count == 1 else "skills"
    if report.ok:
        typer.echo(f"{count} {noun} OK")
        return
    failed = sum(1 for s in report.skills if s.status == "failed")
    many = len(report.problems)
    typer.echo(
        f"{many} problem{'' if many == 1 else 's'}; {failed} of {count} {noun} failed to load",
        err=True,
    )
    raise typer.Exit(code=1)


@skills_app.command("list")
def skills_list() -> None:
    """List the skills (built-in and INTERLOCK_SKILLS_PATH): status, tools, commands."""
    from interlock.skills.check import check_skills, default_paths

    settings = load_settings()
    report = check_skills(default_paths(settings), settings)
    for skill in report.skills:
        version = f" {skill.version}" if skill.version else ""
        typer.echo(f"{skill.name}{version} [{skill.status}] {skill.path}")
        if skill.description:
            typer.echo(f"  {skill.description}")
        if skill.status == "failed":
            typer.echo(f"  error: {skill.error}")
            continue
        for name in skill.tools:
            tool = report.registry.get(name)
            permission = str(tool.permission) if tool is not None else "?"
            card = f" card={tool.card}" if tool is not None and tool.card else ""
            typer.echo(f"  tool {name} {permission}{card}")
        for command in skill.commands:
            typer.echo(f"  command /{command.command} -> {command.tool}: {command.title}")
    core = [t for t in report.registry.tools() if t.skill is None]
    for tool in core:
        typer.echo(f"(core) tool {tool.name} {tool.permission}")
