"""Tags: a skill's ``tags`` reach each of its tools, beside the tools' own; bad tags fail."""

from __future__ import annotations

from interlock.skills import load_skills
from interlock.tools import ToolRegistry

TAGGED_MD = """
---
name: ops
description: Operations.
tags: [infra, ops]
---
Operate.
"""

TAGGED_TOOLS = """
from interlock.tools import tool

@tool(name="ops.restart", title="Restart", description="Restart.", write=True,
      tags=["danger", "ops"])
def restart(args, ctx):
    return "restarted"
"""

TAGGED_YAML = """
- name: ops.hello
  kind: text_template
  title: Hello
  description: Greets.
  tags: [greeting]
  input_schema: {type: object, properties: {}, additionalProperties: false}
  template: "Hello"
"""


def test_a_tools_tags_are_its_own_and_its_skills(tmp_path, write_skill, offline_settings):
    write_skill("ops", TAGGED_MD, tools=TAGGED_TOOLS, tools_yaml=TAGGED_YAML)
    registry = ToolRegistry()

    (skill,) = load_skills(registry, [tmp_path], offline_settings)

    assert skill.status == "loaded", skill.error
    restart, hello = registry.get("ops.restart"), registry.get("ops.hello")
    assert restart is not None and hello is not None
    assert restart.tags == ("danger", "infra", "ops")
    assert hello.tags == ("greeting", "infra", "ops")


def test_a_bad_skill_tag_fails_the_skill_at_its_line(tmp_path, write_skill, offline_settings):
    write_skill(
        "ops",
        TAGGED_MD.replace("tags: [infra, ops]", "tags: [infra, Big Tag]"),
        tools=TAGGED_TOOLS,
    )
    registry = ToolRegistry()

    (skill,) = load_skills(registry, [tmp_path], offline_settings)

    assert skill.status == "failed"
    assert skill.error is not None and skill.error.startswith("SKILL.md:4: tags[1]")
    assert registry.get("ops.restart") is None


def test_a_bad_declarative_tag_fails_the_skill(tmp_path, write_skill, offline_settings):
    write_skill("ops", TAGGED_MD, tools_yaml=TAGGED_YAML.replace("[greeting]", "[Greeting!]"))

    (skill,) = load_skills(ToolRegistry(), [tmp_path], offline_settings)

    assert skill.status == "failed"
    assert skill.error is not None and "tag 'Greeting!' must be 1 to 40 lowercase" in skill.error
