"""Where a skill's tools come from (``tools.py``, declarative specs) and what is wrong with them.

Every function here reports problems instead of raising, each at the place the tool was
declared: the handler's ``def`` (first decorator) in ``tools.py``, or the spec's ``name`` in
the front matter or ``tools.yaml``.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import logging
import re
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from langchain_core.tools import BaseTool

from interlock.adapters.declarative import DeclarativeToolError, build_declarative_tool
from interlock.adapters.langchain_tools import WRITE_NOT_STATED, langchain_source
from interlock.settings import Settings
from interlock.skills.manifest import Problem, SlashCommand, YamlSource
from interlock.tools import Tool, ToolRegistrationError, ToolRegistry, provider_safe_name

logger = logging.getLogger(__name__)

MODULE_PREFIX = "interlock_skill_"
"""Skill modules are imported as ``interlock_skill_<name>`` (non-identifier characters -> ``_``)."""


@dataclass
class StagedTool:
    """A tool of the skill being loaded, and where it was declared.

    Attributes:
        tool: The tool (not registered yet).
        file: ``tools.py``, ``SKILL.md`` or ``tools.yaml``.
        line: 1-based line of its declaration.
    """

    tool: Tool
    file: Path
    line: int


def module_name_for(skill: str) -> str:
    """Return the module name ``tools.py`` of skill ``skill`` is imported as."""
    return MODULE_PREFIX + re.sub(r"\W", "_", skill)


def import_tools(skill: str, path: Path) -> tuple[ModuleType | None, list[Problem]]:
    """Import ``tools.py`` as :func:`module_name_for` ``(skill)`` (replacing an earlier import).

    Returns:
        ``(module, [])``, or ``(None, [problem])`` when importing raised (``SystemExit``
        included): ``"tools.py failed to import: <Type>: <text>"`` at the syntax error's
        line, or the deepest traceback line inside ``tools.py``, else line 1. A failed
        module is removed from ``sys.modules``.
    """
    module_name = module_name_for(skill)
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        return None, [Problem(path, 1, f"cannot import {path.name}")]
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:
        if sys.modules.get(module_name) is module:
            del sys.modules[module_name]
        reason = f"{path.name} failed to import: {type(exc).__name__}: {exc}"
        return None, [Problem(path, _error_line(exc, path), reason)]
    return module, []


def module_tools(module: ModuleType) -> list[Tool]:
    """Return the :class:`Tool` objects bound at module level, each once, in definition order."""
    seen: set[int] = set()
    tools: list[Tool] = []
    for value in vars(module).values():
        if isinstance(value, Tool) and id(value) not in seen:
            seen.add(id(value))
            tools.append(value)
    return tools


def python_tools(module: ModuleType, path: Path) -> list[StagedTool]:
    """Return the module's tools, each at the line of its handler in ``path`` (else 1)."""
    return [StagedTool(tool, path, _def_line(tool, path)) for tool in module_tools(module)]


def bare_langchain_problems(
    module: ModuleType, path: Path, staged: Sequence[StagedTool]
) -> list[Problem]:
    """Report LangChain tools bound at module level that no ``from_langchain(...)`` adapts.

    Such a tool cannot be registered as it is: whether it changes data must be stated.
    """
    wrapped = {id(source) for s in staged if (source := langchain_source(s.tool)) is not None}
    problems: list[Problem] = []
    seen: set[int] = set()
    for value in vars(module).values():
        if not isinstance(value, BaseTool) or id(value) in wrapped or id(value) in seen:
            continue
        seen.add(id(value))
        reason = ToolRegistrationError(
            f"{WRITE_NOT_STATED}: bind from_langchain({value.name}, name=..., write=...) "
            "at module level (interlock.adapters.from_langchain)",
            tool_name=value.name,
        )
        problems.append(Problem(path, _code_line(_langchain_code(value), path), str(reason)))
    return problems


def declarative_tools(
    specs: Sequence[dict[str, Any]],
    *,
    skill: str,
    settings: Settings,
    source: YamlSource,
    base: Sequence[str | int],
) -> tuple[list[StagedTool], list[Problem]]:
    """Build declarative tools with :func:`~interlock.adapters.declarative.build_declarative_tool`.

    Args:
        specs: The specs.
        skill: The skill's name.
        settings: Passed to the builder.
        source: The YAML the specs were read from.
        base: Key path of the spec list in ``source`` (``["tools"]`` in front matter, ``[]``
            in ``tools.yaml``).

    Returns:
        ``(tools, problems)``; a :class:`DeclarativeToolError` is a problem at the line of
        its ``path`` inside the spec.
    """
    staged: list[StagedTool] = []
    problems: list[Problem] = []
    for index, spec in enumerate(specs):
        at = [*base, index]
        try:
            tool = build_declarative_tool(spec, skill=skill, settings=settings)
        except DeclarativeToolError as exc:
            problems.append(Problem(source.file, source.line([*at, *exc.path]), exc.message))
            continue
        except Exception as exc:  # a builder bug must not stop the other skills
            logger.exception("Building declarative tool %s of %s raised", at, source.file)
            reason = f"declarative tool failed to build: {type(exc).__name__}: {exc}"
            problems.append(Problem(source.file, source.line(at), reason))
            continue
        staged.append(StagedTool(tool, source.file, source.line([*at, "name"])))
    return staged, problems


def rule_problems(registry: ToolRegistry, staged: Sequence[StagedTool]) -> list[Problem]:
    """Apply the registry's rules to each tool (a copy) in a scratch registry.

    Unlike :meth:`ToolRegistry.register_many`, which stops at the first broken rule, every
    broken tool is reported (duplicates within ``staged`` included). Costs a schema check per
    tool, so the loader runs it only for a skill that already failed.
    """
    problems: list[Problem] = []
    scratch = ToolRegistry(
        max_result_chars=registry.max_result_chars, default_timeout_s=registry.default_timeout_s
    )
    for item in staged:
        try:
            scratch.register(dataclasses.replace(item.tool))
        except ToolRegistrationError as exc:
            problems.append(Problem(item.file, item.line, str(exc)))
    return problems


def collision_problems(registry: ToolRegistry, staged: Sequence[StagedTool]) -> list[Problem]:
    """Report tools whose name is taken in ``registry``, also after the provider-safe mapping,
    with the skill (or the core tools) holding it."""
    problems: list[Problem] = []
    for item in staged:
        tool = item.tool
        if not isinstance(tool.name, str):
            continue  # a rule problem
        pname = provider_safe_name(tool.name)
        other = registry.get(tool.name) or registry.by_provider_name(pname)
        if other is None:
            continue
        owner = f"skill '{other.skill}'" if other.skill else "the core tools"
        if other.name == tool.name:
            what = "is already registered"
        else:
            what = f"collides with '{other.name}' after provider-safe mapping ('{pname}')"
        problems.append(
            Problem(item.file, item.line, f"name collision: tool '{tool.name}' {what} by {owner}")
        )
    return problems


def registration_error_problem(
    exc: ToolRegistrationError, staged: Sequence[StagedTool], fallback: Path
) -> Problem:
    """Place a :class:`ToolRegistrationError` at the tool it names (else ``fallback``:1)."""
    for item in staged:
        if item.tool.name == exc.tool_name:
            return Problem(item.file, item.line, str(exc))
    return Problem(fallback, 1, str(exc))


def template_problems(command: SlashCommand, tool: Tool) -> list[str]:
    """Return why ``command``'s argument template cannot fit ``tool``'s input schema.

    Checked: template keys the schema does not accept (``additionalProperties: false``) and
    required arguments the template does not fill.
    """
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    keys = set(command.template())
    out: list[str] = []
    if schema.get("additionalProperties") is False:
        unknown = sorted(keys - set(properties))
        if unknown:
            out.append(
                f"command /{command.command} sets {', '.join(repr(k) for k in unknown)}, not "
                f"an argument of '{tool.name}' (its arguments: "
                f"{', '.join(sorted(properties)) or 'none'})"
            )
    required = schema.get("required")
    missing = [r for r in required if r not in keys] if isinstance(required, list) else []
    if missing:
        out.append(
            f"command /{command.command} does not fill required argument"
            f"{'s' if len(missing) > 1 else ''} {', '.join(repr(m) for m in missing)} "
            f"of '{tool.name}'"
        )
    return out


def _same_file(name: str | None, path: Path) -> bool:
    if not name:
        return False
    try:
        return Path(name).resolve() == path.resolve()
    except OSError:
        return False


def _def_line(tool: Tool, path: Path) -> int:
    """The line of the tool's handler definition (its first decorator) in ``path``, else 1.

    For an adapted LangChain tool, the line of the LangChain tool's function.
    """
    source = langchain_source(tool)
    code = (
        _langchain_code(source) if source is not None else getattr(tool.handler, "__code__", None)
    )
    return _code_line(code, path)


def _langchain_code(source: BaseTool) -> Any:
    function = getattr(source, "func", None) or getattr(source, "coroutine", None)
    return getattr(function, "__code__", None)


def _code_line(code: Any, path: Path) -> int:
    if code is not None and _same_file(code.co_filename, path):
        return int(code.co_firstlineno)
    return 1


def _error_line(exc: BaseException, path: Path) -> int:
    """The line in ``path`` where importing it failed (syntax error or traceback), else 1."""
    if isinstance(exc, SyntaxError) and _same_file(exc.filename, path) and exc.lineno:
        return exc.lineno
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _same_file(f.filename, path)]
    return (frames[-1].lineno or 1) if frames else 1
