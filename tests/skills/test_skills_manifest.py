"""SKILL.md front matter and tools.yaml: YAML read with line numbers."""

from __future__ import annotations

from pathlib import Path

from interlock.skills.manifest import (
    Problem,
    SkillManifest,
    dotted,
    parse_skill_file,
    parse_tools_yaml,
    read_yaml,
)
from interlock.tools import Permission

NOTES_MD = """\
\ufeff---
name: notes
description: Keep notes.
version: 1.0.0
tags: [productivity]
permissions:
  notes.add: ASK
cards:
  notes.add: approval
commands:
  - command: notes
    title: Add a note
    tool: notes.add
    args: {text: "{query}"}
---

# Notes

Body.
"""


def test_a_full_front_matter_parses_into_the_manifest(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_text(NOTES_MD, encoding="utf-8")

    parsed = parse_skill_file(path)

    assert parsed.problems == []
    assert parsed.body == "# Notes\n\nBody."
    manifest = parsed.manifest
    assert isinstance(manifest, SkillManifest)
    assert (manifest.name, manifest.version, manifest.tags) == ("notes", "1.0.0", ["productivity"])
    assert manifest.permissions == {"notes.add": Permission.ASK}
    assert manifest.cards == {"notes.add": "approval"}
    assert manifest.commands[0].render("milk") == {"text": "milk"}
    assert parsed.source.line(["commands", 0, "tool"]) == 13
    assert parsed.source.line(["commands", 0, "args", "text"]) == 14
    assert parsed.source.line(["permissions", "notes.add"]) == 7
    assert parsed.source.line(["nothing", "here"]) == 1
    assert parsed.source.line(["commands", 5]) == 10


def test_duplicate_keys_are_found_at_any_depth(tmp_path: Path) -> None:
    text = "- name: a\n  name: b\n  input_schema:\n    type: object\n    type: array\n"

    data, _, problems = read_yaml(tmp_path / "tools.yaml", text, offset=0)

    assert data is None
    assert problems == [
        Problem(tmp_path / "tools.yaml", 2, "duplicate key 'name' (first on line 1)"),
        Problem(tmp_path / "tools.yaml", 5, "duplicate key 'type' (first on line 4)"),
    ]


def test_unsafe_yaml_tags_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text("- !!python/object:os.system {}\n", encoding="utf-8")

    specs, _, problems = parse_tools_yaml(path)

    assert specs == []
    assert [(p.line, p.reason.split(":")[0]) for p in problems] == [(1, "invalid YAML")]


def test_an_empty_tools_yaml_is_no_tools(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text("# nothing yet\n", encoding="utf-8")

    assert parse_tools_yaml(path)[::2] == ([], [])


def test_dotted_paths_quote_keys_with_dots() -> None:
    assert dotted(["commands", 0, "tool"]) == "commands[0].tool"
    assert dotted(["permissions", "notes.add"]) == "permissions['notes.add']"
    assert dotted([]) == ""


def test_invalid_yaml_names_the_character_at_fault(tmp_path: Path) -> None:
    # libyaml (the fast parser) says only "found character that cannot start any token".
    _, _, problems = read_yaml(tmp_path / "tools.yaml", "a: 1\nb: @x\n", offset=2)

    assert [(p.line, p.reason) for p in problems] == [
        (4, "invalid YAML: found character '@' that cannot start any token")
    ]


def test_both_parsers_read_the_same_data_and_lines(tmp_path: Path) -> None:
    import yaml

    from interlock.skills import manifest

    text = "name: notes\ntools:\n  - name: add\n    tags: [a, b]\n  - {name: list}\n"
    fast = read_yaml(tmp_path / "x.yaml", text, offset=1)
    slow = manifest._read_yaml(yaml.SafeLoader, tmp_path / "x.yaml", text, offset=1)

    expected = {"name": "notes", "tools": [{"name": "add", "tags": ["a", "b"]}, {"name": "list"}]}
    assert fast[0] == slow[0] == expected
    for loc in (["name"], ["tools", 0, "tags"], ["tools", 1, "name"]):
        assert fast[1].line(loc) == slow[1].line(loc)
    assert fast[1].line(["tools", 1, "name"]) == 6
