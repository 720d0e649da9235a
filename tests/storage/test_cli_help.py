"""Every `interlock` command's --help reads as plain text, without reStructuredText markup."""

from __future__ import annotations

import pytest
import typer
from typer.testing import CliRunner

from interlock.cli import app


def _command_paths() -> list[list[str]]:
    root = typer.main.get_command(app)
    paths: list[list[str]] = []

    def walk(command: object, path: list[str]) -> None:
        paths.append(path)
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])

    walk(root, [])
    return paths


@pytest.mark.parametrize("path", _command_paths(), ids=lambda p: " ".join(p) or "interlock")
def test_help_has_no_rst_markup(path: list[str]) -> None:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "``" not in result.output, result.output
    assert ":mod:" not in result.output and ":class:" not in result.output, result.output
