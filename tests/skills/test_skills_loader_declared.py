"""Skill loading: what a skill declares for its tools in SKILL.md and tools.yaml (permissions,
cards, slash commands, declarative tools, approval rules), and its problems at file:line."""

from __future__ import annotations

import pytest

from interlock.skills import SlashCommand
from interlock.tools import Permission
from support.skill_files import ECHO_TOOLS, load, md, only


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
