"""load_skills: skill folders, SKILL.md front matter, and failures that do not stop others."""

from __future__ import annotations

import sys
from pathlib import Path
from textwrap import dedent

import pytest

from interlock.settings import REPO_ROOT
from interlock.skills import LoadedSkill, load_skills
from interlock.skills.loader import read_skill_file
from interlock.tools import Permission, ToolRegistry

BUILTIN_SKILLS = REPO_ROOT / "skills"

GOOD_TOOLS = """
from interlock.tools import Permission, tool

@tool(name="good.ping", title="Ping", description="Ping.", permission=Permission.ALLOW)
def ping(args, ctx):
    return "pong"

alias = ping  # the same tool bound twice is registered once
"""


def write_skill(base: Path, folder: str, tools: str | None, skill_md: str | None = None) -> Path:
    path = base / folder
    path.mkdir(parents=True)
    if tools is not None:
        (path / "tools.py").write_text(dedent(tools), encoding="utf-8")
    if skill_md is not None:
        (path / "SKILL.md").write_text(dedent(skill_md), encoding="utf-8")
    return path


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry()


def test_a_good_skill_loads_beside_a_broken_one(tmp_path, registry):
    write_skill(
        tmp_path,
        "good",
        GOOD_TOOLS,
        """\
        ---
        name: good
        description: Answers pings.
        ---
        # Good

        Ping when asked.
        """,
    )
    write_skill(tmp_path, "broken", "import does_not_exist_anywhere\n")

    skills = load_skills(registry, [tmp_path])

    assert skills == [
        LoadedSkill(
            name="broken",
            status="failed",
            error=(
                "tools.py failed to import: ModuleNotFoundError: "
                "No module named 'does_not_exist_anywhere'"
            ),
            path=tmp_path / "broken",
        ),
        LoadedSkill(
            name="good",
            status="loaded",
            description="Answers pings.",
            instructions="# Good\n\nPing when asked.",
            tools=("good.ping",),
            path=tmp_path / "good",
        ),
    ]
    assert [t.name for t in registry.tools()] == ["good.ping"]
    assert registry.get("good.ping").permission is Permission.ALLOW
    assert "interlock_skill_good" in sys.modules
    assert "interlock_skill_broken" not in sys.modules


def test_a_skill_raising_while_imported_fails_with_the_exception(tmp_path, registry):
    write_skill(tmp_path, "boom", "raise SystemExit('bye')\n")
    write_skill(tmp_path, "syntax", "def broken(:\n")

    boom, syntax = load_skills(registry, [tmp_path])

    assert (boom.status, boom.error) == ("failed", "tools.py failed to import: SystemExit: bye")
    assert syntax.status == "failed"
    assert syntax.error.startswith("tools.py failed to import: SyntaxError:")


def test_a_skill_whose_tool_breaks_a_rule_fails_and_registers_none_of_its_tools(tmp_path, registry):
    write_skill(
        tmp_path,
        "mixed",
        """
        from interlock.tools import tool

        @tool(name="mixed.fine", title="Fine", description="Fine.")
        def fine(args, ctx):
            return "ok"

        @tool(name="Mixed.Bad", title="Bad", description="Bad.")
        def bad(args, ctx):
            return "no"
        """,
    )

    (skill,) = load_skills(registry, [tmp_path])

    assert skill.status == "failed"
    assert skill.error.startswith("Cannot register tool 'Mixed.Bad': name must be lowercase")
    assert registry.tools() == []


def test_a_skill_colliding_with_an_earlier_skill_fails(tmp_path, registry):
    write_skill(tmp_path, "a", GOOD_TOOLS)
    write_skill(tmp_path, "b", GOOD_TOOLS)

    first, second = load_skills(registry, [tmp_path])

    assert first.status == "loaded"
    assert second.status == "failed"
    assert "duplicate name" in second.error


def test_the_same_skill_name_in_a_later_directory_fails(tmp_path, registry):
    write_skill(tmp_path / "one", "notes", None, "---\nname: notes\n---\n")
    write_skill(tmp_path / "two", "notes", None, "---\nname: notes\n---\n")

    first, second = load_skills(registry, [tmp_path / "one", tmp_path / "two"])

    assert first.status == "loaded"
    assert second.status == "failed"
    assert second.error == f"duplicate skill name: already loaded from {tmp_path / 'one' / 'notes'}"


def test_the_front_matter_name_wins_over_the_folder_name(tmp_path, registry):
    write_skill(tmp_path, "folder", None, "---\nname: pretty\ndescription: Nice.\n---\nBody\n")

    (skill,) = load_skills(registry, [tmp_path])

    assert (skill.name, skill.status, skill.description) == ("pretty", "loaded", "Nice.")
    assert skill.instructions == "Body"
    assert skill.tools == ()


@pytest.mark.parametrize(
    ("skill_md", "error"),
    [
        ("---\nname: [unclosed\n---\n", "SKILL.md front matter is not valid YAML"),
        ("---\n- a\n- b\n---\n", "SKILL.md front matter must be a YAML mapping"),
        ("---\nname: x\n", "SKILL.md front matter has no closing '---' line"),
        ("---\nname: Has.Dots\n---\n", "name 'Has.Dots' must be lowercase letters"),
        ("---\ndescription: 5\n---\n", "description in SKILL.md front matter must be a string"),
    ],
)
def test_a_bad_skill_file_fails_the_skill(tmp_path, registry, skill_md, error):
    write_skill(tmp_path, "bad", GOOD_TOOLS, skill_md)

    (skill,) = load_skills(registry, [tmp_path])

    assert skill.status == "failed"
    assert skill.error.startswith(error)
    assert registry.tools() == []


def test_folders_without_skill_files_and_hidden_folders_are_skipped(tmp_path, registry):
    (tmp_path / "empty").mkdir()
    write_skill(tmp_path, "_private", GOOD_TOOLS)
    write_skill(tmp_path, ".hidden", GOOD_TOOLS)
    (tmp_path / "README.md").write_text("not a skill", encoding="utf-8")

    assert load_skills(registry, [tmp_path]) == []


def test_a_missing_directory_is_skipped(tmp_path, registry):
    write_skill(tmp_path, "good", GOOD_TOOLS)

    skills = load_skills(registry, [tmp_path / "missing", tmp_path])

    assert [(s.name, s.status) for s in skills] == [("good", "loaded")]


def test_a_skill_file_without_front_matter_is_all_instructions(tmp_path):
    path = tmp_path / "SKILL.md"
    path.write_text("# Title\n\nText.\n", encoding="utf-8")

    assert read_skill_file(path) == ({}, "# Title\n\nText.\n")


def test_the_builtin_skills_all_load(registry):
    skills = load_skills(registry, [BUILTIN_SKILLS])

    assert [(s.name, s.status, s.tools) for s in skills] == [
        ("notes", "loaded", ("notes.add", "notes.delete", "notes.list")),
        ("suggestions", "loaded", ("suggestions",)),
    ]
    assert all(s.description and s.instructions for s in skills)
