"""Skill loading: folders, manifests, tools, and problems reported at file:line."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from interlock.skills import Skill, SlashCommand, load_catalog, load_skills
from interlock.skills.manifest import Problem
from interlock.tools import Permission, ToolRegistry

from .conftest import BUILTIN_SKILLS

GOOD_MD = """
---
name: good
description: Answers pings.
version: "2.1"
tags: [demo, test]
---
# Good

Ping when asked.
"""

GOOD_TOOLS = """
from interlock.tools import Permission, tool

@tool(name="good.ping", title="Ping", description="Ping.", permission=Permission.ALLOW)
def ping(args, ctx):
    return "pong"

alias = ping  # the same tool bound twice is registered once
"""

ECHO_TOOLS = """
from interlock.tools import tool

@tool(
    name="echo.say",
    title="Say",
    description="Say it.",
    input_schema={
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    },
)
def say(args, ctx):
    return args["text"]

@tool(name="echo.shout", title="Shout", description="Shout.")
def shout(args, ctx):
    return "!"
"""


def md(name: str, description: str = "A skill.", extra: str = "") -> str:
    """A SKILL.md with front matter ``name``, ``description`` and extra YAML lines."""
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\nInstructions.\n"


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry()


def load(registry: ToolRegistry, base: Path, settings) -> list[Skill]:
    return load_skills(registry, [base], settings)


def only(skill: Skill) -> tuple[int, str]:
    """The one problem of a failed skill as ``(line, reason)``."""
    assert skill.status == "failed", skill
    assert len(skill.problems) == 1, skill.problems
    return skill.problems[0].line, skill.problems[0].reason


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


def test_manifest_permissions_and_cards_apply_to_the_skill_tools(
    tmp_path, write_skill, registry, offline_settings
):
    write_skill(
        "echo",
        md("echo", extra="permissions:\n  echo.say: ALLOW\ncards:\n  echo.shout: confirm\n"),
        tools=ECHO_TOOLS,
    )

    (skill,) = load(registry, tmp_path, offline_settings)

    assert skill.status == "loaded"
    say, shout = registry.get("echo.say"), registry.get("echo.shout")
    assert (say.permission, say.card, say.skill) == (Permission.ALLOW, None, "echo")
    assert (shout.permission, shout.card, shout.skill) == (Permission.ASK, "confirm", "echo")


def test_permissions_or_cards_naming_unknown_tools_fail(
    tmp_path, write_skill, registry, offline_settings
):
    write_skill(
        "echo",
        md("echo", extra="permissions:\n  echo.nope: ALLOW\ncards:\n  notes.add: form\n"),
        tools=ECHO_TOOLS,
    )

    (skill,) = load(registry, tmp_path, offline_settings)

    assert [(p.line, p.reason) for p in skill.problems] == [
        (
            5,
            "permissions: 'echo.nope' is not a tool of skill 'echo' (its tools: echo.say, echo.shout)",
        ),
        (7, "cards: 'notes.add' is not a tool of skill 'echo' (its tools: echo.say, echo.shout)"),
    ]


COMMANDS = """\
commands:
  - command: say
    title: Say it
    tool: echo.say
    args: {text: "You said: {query}"}
  - command: shout
    title: Shout
    description: Shout the line
    tool: echo.shout
    args: {}
"""


def test_slash_commands_load_with_their_templates(
    tmp_path, write_skill, registry, offline_settings
):
    write_skill("echo", md("echo", extra=COMMANDS), tools=ECHO_TOOLS)

    (skill,) = load(registry, tmp_path, offline_settings)

    assert skill.status == "loaded"
    say, shout = skill.commands
    assert say == SlashCommand(
        command="say", title="Say it", tool="echo.say", args={"text": "You said: {query}"}
    )
    assert say.render("hi {there}") == {"text": "You said: hi {there}"}
    assert shout.render("x") == {}
    assert SlashCommand(command="q", title="Q", tool="t").render("a b") == {"query": "a b"}


@pytest.mark.parametrize(
    ("commands", "line", "reason"),
    [
        (
            "commands:\n  - command: say\n    title: S\n    tool: echo.nope\n",
            7,
            "command /say is bound to unknown tool 'echo.nope' (tools of skill 'echo': "
            "echo.say, echo.shout)",
        ),
        (
            "commands:\n  - command: say\n    title: S\n    tool: notes.add\n",
            7,
            "command /say is bound to unknown tool 'notes.add' (tools of skill 'echo': "
            "echo.say, echo.shout)",
        ),
        (
            "commands:\n  - command: say\n    title: S\n    tool: echo.shout\n"
            "  - command: say\n    title: S2\n    tool: echo.shout\n",
            8,
            "slash command clash: /say is declared twice in this skill (first on line 5)",
        ),
        (
            "commands:\n  - command: say\n    title: S\n    tool: echo.say\n",
            5,
            "command /say sets 'query', not an argument of 'echo.say' (its arguments: text)",
        ),
        (
            "commands:\n  - command: say\n    title: S\n    tool: echo.say\n    args: {}\n",
            8,
            "command /say does not fill required argument 'text' of 'echo.say'",
        ),
    ],
)
def test_bad_commands_fail_the_skill(
    tmp_path, write_skill, registry, offline_settings, commands, line, reason
):
    write_skill("echo", md("echo", extra=commands), tools=ECHO_TOOLS)

    (skill,) = load(registry, tmp_path, offline_settings)

    assert reason in [p.reason for p in skill.problems if p.line == line], skill.problems
    assert registry.tools() == []


TEMPLATE_TOOL = """\
- name: greet.hello
  kind: text_template
  title: Say hello
  description: Greets someone.
  permission: ALLOW
  input_schema:
    type: object
    properties: {name: {type: string}}
    required: [name]
  template: "Hello {arguments.name}!"
"""


async def test_declarative_tools_load_from_front_matter_and_tools_yaml(
    tmp_path, write_skill, registry, offline_settings, context_for
):
    indented = "".join(f"  {line}\n" for line in TEMPLATE_TOOL.replace("hello", "hi").splitlines())
    write_skill(
        "greet",
        md("greet", extra=f"tools:\n{indented}permissions:\n  greet.hello: ASK\n"),
        tools_yaml=TEMPLATE_TOOL,
    )

    (skill,) = load(registry, tmp_path, offline_settings)

    assert (skill.status, skill.tools) == ("loaded", ("greet.hello", "greet.hi")), skill.error
    hello = registry.get("greet.hello")
    assert (hello.skill, hello.permission) == ("greet", Permission.ASK)
    assert registry.get("greet.hi").permission is Permission.ALLOW
    result = await registry.execute(hello, {"name": "Ann"}, context_for("u1"))
    assert result.text == "Hello Ann!"


@pytest.mark.parametrize(
    ("tools_yaml", "line", "reason"),
    [
        (TEMPLATE_TOOL.replace("kind: text_template", "kind: magic"), 2, "kind must be one of"),
        (TEMPLATE_TOOL.replace("permission: ALLOW", "permission: NEVER"), 5, "permission must be"),
        (TEMPLATE_TOOL.replace("{arguments.name}", "{arguments.who}"), 10, ""),
        (TEMPLATE_TOOL.replace("greet.hello", "other.hello"), 1, "name must be 'greet'"),
        ("- 1\n", 1, "[0]: Input should be a valid dictionary"),
        ("name: not a list\n", 1, "tools.yaml must be a YAML list of tools"),
        ("- {name: [unclosed\n", 2, "invalid YAML"),
    ],
)
def test_declarative_tool_problems_point_into_tools_yaml(
    tmp_path, write_skill, registry, offline_settings, tools_yaml, line, reason
):
    write_skill("greet", md("greet"), tools_yaml=tools_yaml)

    (skill,) = load(registry, tmp_path, offline_settings)

    problem_line, problem_reason = only(skill)
    assert skill.problems[0].file == tmp_path / "greet" / "tools.yaml"
    assert problem_line == line
    assert reason in problem_reason


def test_declarative_problems_in_front_matter_point_at_the_front_matter_line(
    tmp_path, write_skill, registry, offline_settings
):
    spec = TEMPLATE_TOOL.replace("permission: ALLOW", "permission: NEVER")
    indented = "".join(f"  {line}\n" for line in spec.splitlines())
    write_skill("greet", md("greet", extra=f"tools:\n{indented}"))

    (skill,) = load(registry, tmp_path, offline_settings)

    assert only(skill)[0] == 9  # 3 lines before tools:, tools: on 4, the spec from 5


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


def test_manifest_approval_rules_apply_to_the_skill_tools(
    tmp_path, write_skill, registry, offline_settings
):
    rules = (
        "approvals:\n  echo.say: {timeout_s: 50, approvals_required: 2}\n"
        "  echo.shout: {require_approver: true}\n"
    )
    write_skill("echo", md("echo", extra=rules), tools=ECHO_TOOLS)

    (skill,) = load(registry, tmp_path, offline_settings)

    assert skill.status == "loaded", skill.problems
    say, shout = registry.get("echo.say"), registry.get("echo.shout")
    assert (say.approval_timeout_s, say.approvals_required, say.require_approver) == (50, 2, False)
    assert (shout.approval_timeout_s, shout.approvals_required, shout.require_approver) == (
        None,
        1,
        True,
    )


@pytest.mark.parametrize(("value", "words"), [(0, "at least 1 person"), (6, "at most 5")])
def test_approvals_required_out_of_range_fails_the_skill_with_the_reason(
    tmp_path, write_skill, registry, offline_settings, value, words
):
    write_skill(
        "echo",
        md("echo", extra=f"approvals:\n  echo.say: {{approvals_required: {value}}}\n"),
        tools=ECHO_TOOLS,
    )

    (skill,) = load(registry, tmp_path, offline_settings)

    assert skill.status == "failed"
    assert any(words in p.reason and "approvals_required" in p.reason for p in skill.problems), [
        p.reason for p in skill.problems
    ]
    assert registry.get("echo.say") is None
