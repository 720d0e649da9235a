"""Skill loading: folders, SKILL.md, tools.py, and problems reported at file:line.

What a manifest declares for its tools (permissions, cards, slash commands, declarative tools,
approval rules): ``test_skills_loader_declared``.
"""

from __future__ import annotations

import sys

import pytest

from interlock.skills import Skill, load_catalog, load_skills
from interlock.skills.manifest import Problem
from interlock.tools import ToolRegistry
from support.skill_files import ECHO_TOOLS, GOOD_MD, GOOD_TOOLS, load, md, only

from .conftest import BUILTIN_SKILLS


def test_a_good_skill_loads_beside_a_broken_one(tmp_path, write_skill, registry, offline_settings):
    write_skill("good", GOOD_MD, tools=GOOD_TOOLS)
    write_skill("broken", md("broken"), tools="import os\nimport does_not_exist_anywhere\n")

    broken, good = load(registry, tmp_path, offline_settings)

    assert good == Skill(
        name="good",
        description="Answers pings.",
        status="loaded",
        path=tmp_path / "good",
        version="2.1",
        tags=("demo", "test"),
        instructions="# Good\n\nPing when asked.",
        tools=("good.ping",),
    )
    assert broken.status == "failed"
    assert broken.problems == [
        Problem(
            tmp_path / "broken" / "tools.py",
            2,
            "tools.py failed to import: ModuleNotFoundError: "
            "No module named 'does_not_exist_anywhere'",
        )
    ]
    assert broken.error == (
        "tools.py:2: tools.py failed to import: ModuleNotFoundError: "
        "No module named 'does_not_exist_anywhere'"
    )
    assert [t.name for t in registry.tools()] == ["good.ping"]
    assert registry.get("good.ping").skill == "good"
    assert "interlock_skill_good" in sys.modules
    assert "interlock_skill_broken" not in sys.modules


def test_import_errors_point_at_the_line_in_tools_py(
    tmp_path, write_skill, registry, offline_settings
):
    write_skill("boom", md("boom"), tools="x = 1\nraise SystemExit('bye')\n")
    write_skill("syntax", md("syntax"), tools="x = 1\n\ndef broken(:\n    pass\n")
    write_skill("deep", md("deep"), tools="def f():\n    return 1 / 0\n\nf()\n")

    boom, deep, syntax = load(registry, tmp_path, offline_settings)

    assert only(boom) == (2, "tools.py failed to import: SystemExit: bye")
    assert only(deep) == (2, "tools.py failed to import: ZeroDivisionError: division by zero")
    line, reason = only(syntax)
    assert line == 3
    assert reason.startswith("tools.py failed to import: SyntaxError:")


@pytest.mark.parametrize(
    ("skill_md", "line", "reason"),
    [
        ("---\nname: [unclosed\ndescription: x\n---\n", 3, "invalid YAML: "),
        ("---\n- a\n- b\n---\n", 2, "front matter must be a YAML mapping"),
        ("---\nname: x\n", 1, "front matter has no closing '---' line"),
        ("# Just Markdown\n", 1, "no front matter: start the file with a '---' line"),
        ("---\nname: bad\n---\n", 1, "missing required key 'description'"),
        ("---\ndescription: Fine.\n---\n", 1, "missing required key 'name'"),
        ("---\nname: bad\ndescription: '  '\n---\n", 3, "description: String should have at"),
        ("---\nname: Has.Dots\ndescription: x\n---\n", 2, "name 'Has.Dots' must be lowercase"),
        ("---\nname: bad\ndescription: x\nauthor: me\n---\n", 4, "unknown key 'author'"),
        ("---\nname: bad\ndescription: x\nversion: 1.0\n---\n", 4, "version must be a string"),
        ("---\nname: bad\ndescription: x\ntags: [a, 3]\n---\n", 4, "tags[1]: Input should be"),
        ("---\nname: bad\nname: bad\ndescription: x\n---\n", 3, "duplicate key 'name'"),
        (
            "---\nname: bad\ndescription: x\npermissions:\n  bad.x: NEVER\n---\n",
            5,
            "permissions['bad.x']: Input should be 'ALLOW', 'ASK' or 'DENY'",
        ),
        (
            "---\nname: bad\ndescription: x\ncards:\n  bad.x: fancy\n---\n",
            5,
            "cards['bad.x']: Input should be 'approval', 'choice', 'form', 'confirm' or",
        ),
        (
            "---\nname: bad\ndescription: x\ncommands:\n  - command: Bad\n    title: T\n"
            "    tool: bad.x\n---\n",
            5,
            "commands[0].command: 'Bad' must be a lowercase letter",
        ),
        (
            "---\nname: bad\ndescription: x\ncommands:\n  - command: go\n    tool: bad.x\n---\n",
            5,
            "commands[0]: missing required key 'title'",
        ),
        (
            "---\nname: bad\ndescription: x\ncommands:\n  - command: go\n    title: Go\n"
            "    tool: bad.x\n    when: now\n---\n",
            8,
            "commands[0]: unknown key 'when'",
        ),
        (
            "---\nname: bad\ndescription: x\ntools:\n  - just a string\n---\n",
            5,
            "tools[0]: Input should be a valid dictionary",
        ),
    ],
)
def test_each_front_matter_problem_fails_the_skill_at_its_line(
    tmp_path, write_skill, registry, offline_settings, skill_md, line, reason
):
    write_skill("bad", skill_md)

    (skill,) = load(registry, tmp_path, offline_settings)

    found_line, found_reason = only(skill)
    assert (found_line, found_reason[: len(reason)]) == (line, reason)
    assert skill.problems[0].file == tmp_path / "bad" / "SKILL.md"
    assert registry.tools() == []


def test_a_missing_skill_md_fails_the_skill(tmp_path, write_skill, registry, offline_settings):
    write_skill("nomd", tools=GOOD_TOOLS)

    (skill,) = load(registry, tmp_path, offline_settings)

    assert skill.name == "nomd"
    assert only(skill)[1].startswith("SKILL.md is missing")


def test_every_problem_of_a_skill_is_reported(tmp_path, write_skill, registry, offline_settings):
    write_skill(
        "many",
        "---\nname: many\ndescription: x\nfoo: 1\nbar: 2\n---\n",
        tools="import nope_not_a_module\n",
    )

    (skill,) = load(registry, tmp_path, offline_settings)

    assert [(p.file.name, p.line, p.reason.split(" (")[0]) for p in skill.problems] == [
        ("SKILL.md", 4, "unknown key 'foo'"),
        ("SKILL.md", 5, "unknown key 'bar'"),
        (
            "tools.py",
            1,
            "tools.py failed to import: ModuleNotFoundError: No module named 'nope_not_a_module'",
        ),
    ]
    assert skill.error.startswith("SKILL.md:4: unknown key 'foo'")


def test_tool_names_must_carry_the_skill_prefix(tmp_path, write_skill, registry, offline_settings):
    write_skill("echo", md("other"), tools=ECHO_TOOLS)

    (skill,) = load(registry, tmp_path, offline_settings)

    assert skill.name == "other"
    assert [(p.file.name, p.line, p.reason) for p in skill.problems] == [
        ("tools.py", 3, "tool 'echo.say' must be named 'other' or start with 'other.'"),
        ("tools.py", 17, "tool 'echo.shout' must be named 'other' or start with 'other.'"),
    ]


def test_a_tool_named_like_its_skill_is_allowed(tmp_path, write_skill, registry, offline_settings):
    write_skill(
        "solo",
        md("solo"),
        tools="from interlock.tools import tool\n\n@tool(name='solo', title='S', description='S.')\n"
        "def solo(args, ctx):\n    return 'ok'\n",
    )

    (skill,) = load(registry, tmp_path, offline_settings)

    assert (skill.status, skill.tools) == ("loaded", ("solo",))


def test_a_tool_breaking_a_registry_rule_fails_at_its_def_line_and_registers_nothing(
    tmp_path, write_skill, registry, offline_settings
):
    write_skill(
        "mixed",
        md("mixed"),
        tools="""
        from interlock.tools import tool

        @tool(name="mixed.fine", title="Fine", description="Fine.")
        def fine(args, ctx):
            return "ok"

        @tool(name="mixed.bad", title="Bad", description="Bad.", input_schema={"type": "array"})
        def bad(args, ctx):
            return "no"

        @tool(name="mixed.slow", title="Slow", description="Slow.", timeout_s=-1)
        def slow(args, ctx):
            return "no"
        """,
    )

    (skill,) = load(registry, tmp_path, offline_settings)

    assert [(p.line, p.reason) for p in skill.problems] == [
        (
            7,
            'Cannot register tool \'mixed.bad\': input_schema must have "type": "object" at the root',
        ),
        (
            11,
            "Cannot register tool 'mixed.slow': timeout_s must be a positive number of seconds, got -1",
        ),
    ]
    assert registry.tools() == []


def test_a_provider_name_collision_with_another_skill_fails_the_later_skill(
    tmp_path, write_skill, registry, offline_settings
):
    write_skill("a", md("a"), tools=GOOD_TOOLS.replace("good.ping", "a.b_c"))
    write_skill("a_b", md("a_b"), tools=GOOD_TOOLS.replace("good.ping", "a_b.c"))

    first, second = load(registry, tmp_path, offline_settings)

    assert first.status == "loaded"
    assert only(second) == (
        3,
        "name collision: tool 'a_b.c' collides with 'a.b_c' after provider-safe mapping "
        "('a_b_c') by skill 'a'",
    )
    assert [t.name for t in registry.tools()] == ["a.b_c"]


def test_a_skill_cannot_shadow_the_core_load_skill_tool(tmp_path, write_skill, offline_settings):
    write_skill(
        "load_skill",
        md("load_skill"),
        tools=GOOD_TOOLS.replace("good.ping", "load_skill"),
    )

    catalog = load_catalog(ToolRegistry(), [tmp_path], offline_settings)

    assert only(catalog.skills["load_skill"]) == (
        3,
        "name collision: tool 'load_skill' is already registered by the core tools",
    )


def test_the_same_skill_name_twice_fails_the_later_one(tmp_path, registry, offline_settings):
    from .conftest import write_skill_folder

    write_skill_folder(tmp_path / "one", "notes", md("notes"))
    write_skill_folder(tmp_path / "two", "notes", md("notes"))

    first, second = load_skills(registry, [tmp_path / "one", tmp_path / "two"], offline_settings)

    assert first.status == "loaded"
    assert only(second) == (
        2,
        f"skill name 'notes' is already used by the skill at {tmp_path / 'one' / 'notes'}",
    )


def test_folders_without_skill_files_and_hidden_folders_are_skipped(
    tmp_path, write_skill, registry, offline_settings
):
    (tmp_path / "empty").mkdir()
    write_skill("_private", GOOD_MD, tools=GOOD_TOOLS)
    write_skill(".hidden", GOOD_MD, tools=GOOD_TOOLS)
    (tmp_path / "README.md").write_text("not a skill", encoding="utf-8")

    assert load(registry, tmp_path, offline_settings) == []


def test_a_missing_directory_is_skipped(tmp_path, write_skill, registry, offline_settings):
    write_skill("good", GOOD_MD, tools=GOOD_TOOLS)

    skills = load_skills(registry, [tmp_path / "missing", tmp_path], offline_settings)

    assert [(s.name, s.status) for s in skills] == [("good", "loaded")]


def test_the_builtin_skills_all_load(registry, offline_settings):
    skills = load_skills(registry, [BUILTIN_SKILLS], offline_settings)

    assert [(s.name, s.status, s.tools) for s in skills] == [
        ("ask", "loaded", ("ask.choice", "ask.confirm", "ask.form")),
        ("browser", "loaded", ("browser.selection", "browser.time_zone")),
        ("documents", "loaded", ("documents.list", "documents.read", "documents.write")),
        ("notes", "loaded", ("notes.add", "notes.delete", "notes.list")),
        ("suggestions", "loaded", ("suggestions",)),
    ]
    assert all(s.description and s.instructions and s.version for s in skills)
    notes = skills[3]
    assert [(c.command, c.tool, c.render("milk")) for c in notes.commands] == [
        ("notes", "notes.add", {"text": "milk"})
    ]
    assert skills[4].commands == ()
