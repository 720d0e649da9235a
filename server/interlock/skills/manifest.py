"""A skill's declarations: ``SKILL.md`` front matter and ``tools.yaml``, read with line numbers.

Both files are YAML read by PyYAML's composer, so every value keeps the line it came from:
a problem found later (by pydantic, the tool registry or the declarative tool builder) is
reported as ``file:line: reason`` at the key it is about (:class:`YamlSource.line`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from interlock.approvals.rules import ToolApprovalRule
from interlock.errors import plain_message
from interlock.text import one_line_name
from interlock.tools import Permission
from interlock.tools.registration import TAG_RE

SKILL_NAME_PATTERN = r"^[a-z0-9_-]+$"
COMMAND_PATTERN = r"^[a-z][a-z0-9_-]{0,31}$"
QUERY_PLACEHOLDER = "{query}"
"""In a slash command's argument template, replaced by the text typed after the command."""

CardName = Literal["approval", "choice", "form", "confirm", "markdown"]
NonEmpty = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Tag = Annotated[str, StringConstraints(pattern=f"^{TAG_RE.pattern}$")]
Loc = Sequence[str | int]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a skill, at a place in one of its files.

    Attributes:
        file: The file (``.../SKILL.md``, ``tools.py``, ``tools.yaml``).
        line: 1-based line the problem is about (1 when no better line is known).
        reason: English phrase.
    """

    file: Path
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.reason}"


class SlashCommand(BaseModel):
    """A slash command of a skill: ``/<command> <query>`` calls ``tool`` with ``args``.

    Attributes:
        command: Typed as ``/<command>``; ``^[a-z][a-z0-9_-]{0,31}$``.
        title: Short human title (menus).
        description: What it does, one line.
        tool: A tool of the same skill.
        args: Argument template: string values may contain ``{query}``, the text after the
            command. None means ``{"query": "{query}"}`` (see :meth:`template`).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    command: str = Field(pattern=COMMAND_PATTERN)
    title: NonEmpty
    description: str = ""
    tool: NonEmpty
    args: dict[str, Any] | None = None

    _one_line = field_validator("title", mode="before")(
        one_line_name({"title": "A slash command's title"})
    )

    def template(self) -> dict[str, Any]:
        """Return the argument template (``{"query": "{query}"}`` when ``args`` is None)."""
        return dict(self.args) if self.args is not None else {"query": QUERY_PLACEHOLDER}

    def render(self, query: str) -> dict[str, Any]:
        """Return the tool arguments for ``/<command> <query>``.

        Every ``{query}`` in a string value (nested ones included) is replaced by ``query``;
        other values are kept as they are. Braces other than ``{query}`` are left alone.

        Args:
            query: The text typed after the command (may be empty).
        """
        return {key: _fill(value, query) for key, value in self.template().items()}


def _fill(value: Any, query: str) -> Any:
    if isinstance(value, str):
        return value.replace(QUERY_PLACEHOLDER, query)
    if isinstance(value, list):
        return [_fill(item, query) for item in value]
    if isinstance(value, dict):
        return {key: _fill(item, query) for key, item in value.items()}
    return value


class SkillManifest(BaseModel):
    """The front matter of ``SKILL.md`` (see docs/skills-and-employees.md, "Skill folders")."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=SKILL_NAME_PATTERN)
    description: NonEmpty
    version: str | None = None
    tags: list[Tag] = Field(default_factory=list)
    permissions: dict[str, Permission] = Field(default_factory=dict)
    cards: dict[str, CardName] = Field(default_factory=dict)
    # Approval rules of the skill's tools: {tool: {timeout_s, require_approver, approvals_required}}.
    approvals: dict[str, ToolApprovalRule] = Field(default_factory=dict)
    commands: list[SlashCommand] = Field(default_factory=list)
    tools: list[dict[str, Any]] = Field(default_factory=list)


_TOOL_SPECS = TypeAdapter(list[dict[str, Any]])


@dataclass(frozen=True)
class YamlSource:
    """Where a YAML document's values are, to turn a key path into a file line.

    Attributes:
        file: The file the YAML was read from.
        root: The composed document (None when empty or unreadable).
        offset: Lines of the file before the YAML text (1 for front matter: the ``---``).
    """

    file: Path
    root: yaml.Node | None = None
    offset: int = 0

    def line(self, loc: Loc) -> int:
        """Return the 1-based file line of the value at ``loc`` (keys and list indexes).

        A mapping key gives the key's line; a list index the item's; ``()`` the document's
        first line. When ``loc`` goes further than the document, the deepest part found is
        used; when nothing is found, the line before the YAML (the opening ``---`` of front
        matter), at least 1.
        """
        node = self.root
        line = self._at(node) if node is not None and not loc else max(self.offset, 1)
        for part in loc:
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if isinstance(key, yaml.ScalarNode) and key.value == str(part):
                        line, node = self._at(key), value
                        break
                else:
                    break
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
                if not 0 <= part < len(node.value):
                    break
                node = node.value[part]
                line = self._at(node)
            else:
                break
        return line

    def _at(self, node: yaml.Node) -> int:
        return self.offset + node.start_mark.line + 1


@dataclass
class ParsedSkillFile:
    """What :func:`parse_skill_file` read.

    Attributes:
        manifest: The front matter (without its wrong keys when it has problems), or None
            when it cannot be read or nothing valid is left.
        body: The Markdown after the front matter (instructions), stripped.
        source: Line lookup for the front matter.
        problems: Everything wrong, in file order.
        raw_name: The front matter ``name`` when it is a string, even if the rest is broken.
    """

    manifest: SkillManifest | None
    body: str
    source: YamlSource
    problems: list[Problem] = field(default_factory=list)
    raw_name: str | None = None


def parse_skill_file(path: Path) -> ParsedSkillFile:
    """Read ``SKILL.md``: front matter between ``---`` lines, then Markdown instructions.

    Args:
        path: The file.

    Returns:
        The manifest and every problem: with problems, the manifest is what is left without
        the wrong keys (None when that is not valid either, or the file is not readable
        front matter), so a caller can still check the skill's tools against it. Problems:
        a missing or unreadable file, no front matter, an unclosed one, invalid YAML, a
        duplicate key, not a mapping, and each pydantic error of :class:`SkillManifest`
        (unknown key, missing ``name``/``description``, wrong type...) at its key's line.
    """
    source = YamlSource(path, None, 1)
    if not path.is_file():
        reason = "SKILL.md is missing: a skill needs front matter with name and description"
        return ParsedSkillFile(None, "", source, [Problem(path, 1, reason)])
    try:
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError) as exc:
        return ParsedSkillFile(None, "", source, [Problem(path, 1, f"cannot read: {exc}")])
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        reason = "no front matter: start the file with a '---' line, name and description"
        return ParsedSkillFile(None, text.strip(), source, [Problem(path, 1, reason)])
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        reason = "front matter has no closing '---' line"
        return ParsedSkillFile(None, "", source, [Problem(path, 1, reason)])
    body = "".join(lines[end + 1 :]).strip()
    data, source, problems = read_yaml(path, "".join(lines[1:end]), offset=1)
    if problems:
        return ParsedSkillFile(None, body, source, problems)
    if data is None:
        data = {}
    raw_name = data.get("name") if isinstance(data, dict) else None
    raw_name = raw_name if isinstance(raw_name, str) else None
    if not isinstance(data, dict):
        problem = Problem(path, source.line(()), "front matter must be a YAML mapping")
        return ParsedSkillFile(None, body, source, [problem], raw_name)
    try:
        manifest = SkillManifest.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc, source)
        return ParsedSkillFile(_without_bad_keys(data, exc), body, source, problems, raw_name)
    return ParsedSkillFile(manifest, body, source, [], raw_name)


def _without_bad_keys(data: dict[str, Any], exc: ValidationError) -> SkillManifest | None:
    """The manifest without the top-level keys ``exc`` found wrong, when the rest is valid:
    the skill has failed anyway, but its tools can still be checked against its name and
    references, so one pass reports every problem. None when nothing valid is left."""
    bad = {error["loc"][0] for error in exc.errors() if error["loc"]}
    try:
        return SkillManifest.model_validate({k: v for k, v in data.items() if k not in bad})
    except ValidationError:
        return None


def parse_tools_yaml(path: Path) -> tuple[list[dict[str, Any]], YamlSource, list[Problem]]:
    """Read ``tools.yaml``: a YAML list of declarative tool specs (mappings).

    Returns:
        ``(specs, source, problems)``; ``specs`` is empty when there are problems. An empty
        file is an empty list.
    """
    try:
        text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError) as exc:
        return [], YamlSource(path), [Problem(path, 1, f"cannot read: {exc}")]
    data, source, problems = read_yaml(path, text, offset=0)
    if problems:
        return [], source, problems
    if data is None:
        return [], source, []
    if not isinstance(data, list):
        reason = "tools.yaml must be a YAML list of tools"
        if isinstance(data, dict) and "tools" in data:
            reason += (
                ": remove the 'tools:' line and start each tool with '- name:' (a 'tools' key"
                " belongs in SKILL.md's front matter)"
            )
        return [], source, [Problem(path, source.line(()), reason)]
    try:
        specs = _TOOL_SPECS.validate_python(data)
    except ValidationError as exc:
        return [], source, validation_problems(exc, source)
    return specs, source, []


def read_yaml(path: Path, text: str, *, offset: int) -> tuple[Any, YamlSource, list[Problem]]:
    """Parse one YAML document (safe types only), keeping its node tree for line numbers.

    Args:
        path: The file, for problems.
        text: The YAML text.
        offset: Lines of the file before ``text``.

    Returns:
        ``(data, source, problems)``: invalid YAML gives one problem at the parser's line;
        a key repeated in a mapping gives one problem per repetition (PyYAML would silently
        keep the last value).
    """
    if _FAST_LOADER is not yaml.SafeLoader:
        try:
            return _read_yaml(_FAST_LOADER, path, text, offset=offset)
        except yaml.YAMLError:
            pass  # read again below: PyYAML's own messages name the character at fault
    return _read_yaml(yaml.SafeLoader, path, text, offset=offset)


_FAST_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser when PyYAML has it: the same nodes, data and lines as ``SafeLoader``, at a
tenth of its CPU (skills load at every start)."""


def _read_yaml(
    loader_class: Any, path: Path, text: str, *, offset: int
) -> tuple[Any, YamlSource, list[Problem]]:
    """:func:`read_yaml` with one loader class; the fast one raises ``YAMLError`` itself."""
    source = YamlSource(path, None, offset)
    loader = loader_class(text)
    try:
        root = loader.get_single_node()
        source = YamlSource(path, root, offset)
        problems = _duplicate_keys(source)
        data = loader.construct_document(root) if root is not None and not problems else None
    except yaml.YAMLError as exc:
        if loader_class is not yaml.SafeLoader:
            raise
        mark = getattr(exc, "problem_mark", None)
        line = offset + mark.line + 1 if mark is not None else max(offset, 1)
        what = getattr(exc, "problem", None) or str(exc)
        return None, source, [Problem(path, line, f"invalid YAML: {what}")]
    finally:
        loader.dispose()
    return data, source, problems


def _duplicate_keys(source: YamlSource) -> list[Problem]:
    problems: list[Problem] = []
    seen_nodes: set[int] = set()
    stack = [source.root] if source.root is not None else []
    while stack:
        node = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.MappingNode):
            keys: dict[str, int] = {}
            for key, value in node.value:
                stack.append(value)
                if not isinstance(key, yaml.ScalarNode):
                    continue
                line = source.offset + key.start_mark.line + 1
                if key.value in keys:
                    reason = f"duplicate key '{key.value}' (first on line {keys[key.value]})"
                    problems.append(Problem(source.file, line, reason))
                else:
                    keys[key.value] = line
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return sorted(problems, key=lambda p: p.line)


def validation_problems(exc: ValidationError, source: YamlSource) -> list[Problem]:
    """Turn a pydantic error into problems at the lines of the keys they are about."""
    problems: list[Problem] = []
    for error in exc.errors(include_url=False):
        loc = [part for part in error["loc"] if isinstance(part, str | int)]
        problems.append(Problem(source.file, source.line(loc), _reason(error, loc)))
    return sorted(problems, key=lambda p: p.line)


def _reason(error: Any, loc: list[str | int]) -> str:
    kind = error["type"]
    where = dotted(loc[:-1]) if kind in ("missing", "extra_forbidden") else dotted(loc)
    prefix = f"{where}: " if where else ""
    if kind == "missing":
        return f"{prefix}missing required key '{loc[-1]}'"
    if kind == "extra_forbidden":
        allowed = _allowed_keys(loc)
        hint = f" (allowed: {', '.join(allowed)})" if allowed else ""
        return f"{prefix}unknown key '{loc[-1]}'{hint}"
    if loc == ["name"] and kind == "string_pattern_mismatch":
        return (
            f"name {error['input']!r} must be lowercase letters, digits, '_' and '-' "
            "(it prefixes the skill's tool names)"
        )
    if loc[-1:] == ["command"] and kind == "string_pattern_mismatch":
        return (
            f"{prefix}{error['input']!r} must be a lowercase letter then up to 31 lowercase "
            "letters, digits, '_' or '-'"
        )
    if loc == ["version"] and kind == "string_type":
        return f'version must be a string; quote it: version: "{error["input"]}"'
    return f"{prefix}{plain_message(error['msg'])}"


def _allowed_keys(loc: list[str | int]) -> list[str]:
    if len(loc) == 1:
        return list(SkillManifest.model_fields)
    if len(loc) == 3 and loc[0] == "commands":
        return list(SlashCommand.model_fields)
    return []


def dotted(loc: Loc) -> str:
    """Format a key path as ``commands[0].tool`` / ``permissions['notes.add']``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", part):
            out += f".{part}" if out else part
        else:
            out += f"[{part!r}]"
    return out
