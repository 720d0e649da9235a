"""``interlock skills check`` and ``interlock skills list``."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlock.cli import app
from interlock.skills.check import check_skills, format_problem
from interlock.skills.manifest import Problem

from .conftest import BUILTIN_SKILLS, write_skill_folder

GOOD_TOOLS = """
from interlock.tools import Permission, tool

@tool(name="good.ping", title="Ping", description="Ping.", permission=Permission.ALLOW)
def ping(args, ctx):
    return "pong"
"""

NOTES_CLASH = """
---
name: other
description: Also has /notes.
commands:
  - command: notes
    title: Other notes
    tool: other
---
"""

OTHER_TOOLS = """
from interlock.tools import tool

@tool(name="other", title="Other", description="Other.",
      input_schema={"type": "object", "properties": {"query": {"type": "string"}}})
def other(args, ctx):
    return "ok"
"""


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run with ``tmp_path`` as the working directory (problems print relative to it)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_builtin_skills_check_clean(runner, in_tmp):
    result = runner.invoke(app, ["skills", "check"])

    assert (result.exit_code, result.stdout) == (0, "5 skills OK\n")


def test_a_clean_folder_of_skills_prints_the_count(runner, in_tmp):
    write_skill_folder(
        in_tmp / "mine", "good", "---\nname: good\ndescription: G.\n---\n", GOOD_TOOLS
    )

    result = runner.invoke(app, ["skills", "check", "mine"])

    assert (result.exit_code, result.stdout) == (0, "1 skill OK\n")


def test_problems_print_as_file_line_reason_and_exit_1(runner, in_tmp):
    write_skill_folder(
        in_tmp / "mine", "good", "---\nname: good\ndescription: G.\n---\n", GOOD_TOOLS
    )
    write_skill_folder(
        in_tmp / "mine",
        "bad",
        "---\nname: bad\ndescription: B.\ncolour: red\n---\n",
        "from interlock.tools import tool\n\n\n@tool(name='bad.x', title='X', description='X.',"
        " timeout_s=0)\ndef x(args, ctx):\n    return 'x'\n",
    )

    result = runner.invoke(app, ["skills", "check", "mine"])

    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "mine/bad/SKILL.md:4: unknown key 'colour' (allowed: name, description, version, tags, "
        "permissions, cards, approvals, commands, tools)",
        "mine/bad/tools.py:4: Cannot register tool 'bad.x': timeout_s must be a positive number "
        "of seconds, got 0",
    ]
    assert "2 problems; 1 of 2 skills failed to load" in result.stderr


def test_every_problem_of_one_skill_prints_in_one_pass(runner, in_tmp):
    """The tryout: an unknown key hid the tool named with another skill's prefix."""
    write_skill_folder(
        in_tmp / "mine",
        "mine",
        "---\nname: mine\ndescription: M.\nbogus: 1\npermissions:\n  mine.gone: ALLOW\n---\n",
        "from interlock.tools import tool\n\n\n@tool(name='other.thing', title='T', "
        "description='T.')\ndef thing(args, ctx):\n    return 't'\n",
    )

    result = runner.invoke(app, ["skills", "check", "mine"])

    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith("mine/mine/SKILL.md:4: unknown key 'bogus'")
    assert any("mine.gone" in line for line in lines[1:]), lines
    assert "mine/mine/tools.py:4: tool 'other.thing' must be named 'mine' or start with " in (
        "\n".join(lines)
    )
    assert f"{len(lines)} problems; 1 of 1 skill failed to load" in result.stderr


def test_a_single_skill_folder_can_be_checked(runner, in_tmp):
    write_skill_folder(in_tmp, "solo", "---\nname: solo\n---\n")

    result = runner.invoke(app, ["skills", "check", "solo"])

    assert (result.exit_code, result.stdout) == (
        1,
        "solo/SKILL.md:1: missing required key 'description'\n",
    )


def test_slash_commands_clashing_across_checked_skills_are_problems(runner, in_tmp):
    write_skill_folder(in_tmp, "other", NOTES_CLASH, OTHER_TOOLS)

    result = runner.invoke(app, ["skills", "check", str(BUILTIN_SKILLS), "other"])

    assert result.exit_code == 1
    assert result.stdout == (
        "other/SKILL.md:5: slash command clash: /notes is also declared by skill 'notes'\n"
    )


def test_tool_collisions_across_checked_skills_are_problems(runner, in_tmp):
    write_skill_folder(in_tmp / "a", "notes", "---\nname: notes\ndescription: N.\n---\n")
    write_skill_folder(
        in_tmp / "b",
        "good",
        "---\nname: good\ndescription: G.\n---\n",
        GOOD_TOOLS,
    )
    write_skill_folder(
        in_tmp / "c",
        "good2",
        "---\nname: good\ndescription: G.\n---\n",
        GOOD_TOOLS,
    )

    result = runner.invoke(app, ["skills", "check", "a", "b", "c", str(BUILTIN_SKILLS)])

    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert "c/good2/SKILL.md:2: skill name 'good' is already used by the skill at " in lines[0]
    assert lines[1] == (
        "c/good2/tools.py:3: name collision: tool 'good.ping' is already registered by skill 'good'"
    )
    assert lines[2] == (
        f"{BUILTIN_SKILLS / 'notes' / 'SKILL.md'}:2: skill name 'notes' is already used by the "
        "skill at a/notes"
    )
    assert len(lines) == 3


def test_a_missing_path_is_a_problem(runner, in_tmp):
    result = runner.invoke(app, ["skills", "check", "nowhere"])

    assert (result.exit_code, result.stdout) == (1, "nowhere:1: no such directory\n")


def test_the_default_paths_include_the_skills_path_setting(runner, in_tmp, monkeypatch):
    write_skill_folder(in_tmp / "extra", "bad", "---\nname: bad\n---\n")
    monkeypatch.setenv("INTERLOCK_SKILLS_PATH", f'["{in_tmp / "extra"}"]')

    result = runner.invoke(app, ["skills", "check"])

    assert (result.exit_code, result.stdout) == (
        1,
        "extra/bad/SKILL.md:1: missing required key 'description'\n",
    )


def test_skills_list_shows_status_tools_permissions_and_commands(runner, in_tmp, monkeypatch):
    write_skill_folder(in_tmp / "extra", "bad", "---\nname: bad\n---\n")
    monkeypatch.setenv("INTERLOCK_SKILLS_PATH", f'["{in_tmp / "extra"}"]')

    result = runner.invoke(app, ["skills", "list"])

    assert result.exit_code == 0
    out = result.stdout
    assert f"notes 1.0.0 [loaded] {BUILTIN_SKILLS / 'notes'}" in out
    assert "  tool notes.list ALLOW\n" in out
    assert "  tool notes.add ASK card=approval\n" in out
    assert "  command /notes -> notes.add: Add a note\n" in out
    assert "  tool ask.form ASK card=form\n" in out
    assert (
        f"bad [failed] {in_tmp / 'extra' / 'bad'}\n  error: SKILL.md:1: missing required key 'description'\n"
        in out
    )
    assert "(core) tool load_skill ALLOW" in out


def test_format_problem_is_relative_to_the_working_directory_when_inside(tmp_path):
    inside = Problem(tmp_path / "s" / "SKILL.md", 3, "why")
    outside = Problem(Path("/elsewhere/SKILL.md"), 1, "why")

    assert format_problem(inside, tmp_path) == "s/SKILL.md:3: why"
    assert format_problem(outside, tmp_path) == "/elsewhere/SKILL.md:1: why"


def test_check_skills_reports_the_catalog(offline_settings):
    report = check_skills([BUILTIN_SKILLS, BUILTIN_SKILLS / "notes"], offline_settings)

    assert report.ok
    assert [s.name for s in report.skills] == [
        "ask",
        "browser",
        "documents",
        "notes",
        "suggestions",
    ]
    assert report.registry.get("load_skill") is not None


def test_a_folder_is_checked_against_the_builtin_skills_it_will_load_beside(runner, in_tmp):
    write_skill_folder(in_tmp / "mine", "notes", "---\nname: notes\ndescription: Mine.\n---\n")
    write_skill_folder(
        in_tmp / "mine",
        "memo",
        "---\nname: memo\ndescription: M.\ncommands:\n"
        "  - {command: notes, title: Memo, description: D, tool: memo.ping, args: {}}\n---\n",
        GOOD_TOOLS.replace("good.ping", "memo.ping"),
    )

    result = runner.invoke(app, ["skills", "check", "mine"])

    assert result.exit_code == 1
    assert "mine/notes/SKILL.md:2: skill name 'notes' is already used" in result.stdout
    assert "mine/memo/SKILL.md:5: slash command clash: /notes" in result.stdout
    assert "skills/notes/SKILL.md" not in result.stdout.replace("mine/notes/SKILL.md", "")
