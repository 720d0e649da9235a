"""Registration rules: tool names, provider-safe names and the checks a tool must pass.

:func:`check_tool` applies every rule once, when a tool is registered (name format and length,
no duplicate, no provider-name collision, attribute types, permission, timeout, schemas), so
the registry and the engine can trust a registered tool. :func:`provider_safe_name` maps a
tool name (``notes.add``, ``web-search.fetch``) to the name providers and MCP clients see
(``notes_add``, ``web_search_fetch``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from interlock.approvals.rules import approval_timeout_problem, approvals_required_problem
from interlock.tools.base import Permission, Tool, ToolAnnotations
from interlock.tools.schema import (
    SchemaRuleError,
    check_schema_rules,
    is_finite_number,
    make_validator,
)

TOOL_NAME_RE = re.compile(r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)*")
"""A tool name (full match): lowercase ASCII letters, digits, ``_`` and ``-``, in one or more
``.``-separated segments (``notes.add``); no empty segment, no leading or trailing dot."""

MAX_TOOL_NAME_CHARS = 200
"""Longest tool name: the length of the ``tool_calls.name`` column
(:class:`interlock.storage.models.ToolCall`), where every call's tool name is stored."""

PROVIDER_NAME_RE = re.compile(r"[a-zA-Z0-9_-]{1,64}")
"""A provider-safe function name (full match): the rule OpenAI and Anthropic apply to tool
names (Anthropic's ``^[a-zA-Z0-9_-]{1,64}$``; OpenAI allows the same characters, 64 at most)."""

PROVIDER_NAME_MAX = 64

TAG_RE = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
"""A tag (full match): 1 to 40 lowercase ASCII letters, digits, ``_`` and ``-``, starting with
a letter or digit, so a comma-separated list in a URL query (``tags=productivity,writing``)
needs no escaping."""
_HASH_CHARS = 8
_UNSAFE_RE = re.compile(r"[^a-zA-Z0-9_]")
"""What :func:`provider_safe_name` maps to ``_``: everything but letters, digits and ``_`` (so
dots and dashes, issue 9: ``web-search.fetch`` -> ``web_search_fetch``)."""


class ToolRegistrationError(ValueError):
    """A tool breaks a registration rule (or a ``@tool`` declaration is inconsistent).

    Args:
        reason: What is wrong, as an English phrase (``"duplicate name"``...).
        tool_name: The tool's name, when known.

    Attributes:
        reason: As given.
        tool_name: As given.
    """

    def __init__(self, reason: str, *, tool_name: str | None = None) -> None:
        self.reason = reason
        self.tool_name = tool_name
        subject = f"tool {tool_name!r}" if tool_name is not None else "tool"
        super().__init__(f"Cannot register {subject}: {reason}")


def provider_safe_name(name: str) -> str:
    """Map a tool name to a name every model provider accepts.

    Characters outside ``[a-zA-Z0-9_]`` become ``_``: dots and dashes too (``notes.add`` ->
    ``notes_add``, ``web-search.fetch`` -> ``web_search_fetch``; issue 9 §1), so the result also
    fits providers and MCP clients stricter than ``[a-zA-Z0-9_-]``. A result longer than 64
    characters (or empty) keeps its first 55 characters and gets ``_`` plus the first 8 hex
    digits of the SHA-256 of the original name (UTF-8), so it stays stable across restarts and
    distinct for names sharing a long prefix. The registry refuses two tools whose names map
    to the same result (``notes-add`` and ``notes_add``), naming both.

    Args:
        name: A tool name (any string).

    Returns:
        A string matching ``^[a-zA-Z0-9_]{1,64}$`` (so also the providers' wider
        ``^[a-zA-Z0-9_-]{1,64}$``).
    """
    safe = _UNSAFE_RE.sub("_", name)
    if 0 < len(safe) <= PROVIDER_NAME_MAX:
        return safe
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_CHARS]
    return f"{safe[: PROVIDER_NAME_MAX - _HASH_CHARS - 1]}_{digest}"


def check_tool(
    tool: Tool,
    *,
    registered: Mapping[str, Tool],
    registered_providers: Mapping[str, Tool],
    names: Mapping[str, Tool],
    providers: Mapping[str, Tool],
) -> tuple[str, Permission, Any, Any]:
    """Apply every registration rule; return provider name, permission and validators.

    Args:
        tool: The tool to check.
        registered: Tools already in the registry, by name.
        registered_providers: Tools already in the registry, by provider name.
        names: Tools staged in the same batch, by name.
        providers: Tools staged in the same batch, by provider name.

    Returns:
        ``(provider_name, permission, input_validator, output_validator)``; the output
        validator is None when the tool has no ``output_schema``.

    Raises:
        ToolRegistrationError: With the first broken rule as ``reason``.
    """
    if not isinstance(tool, Tool):
        raise ToolRegistrationError(f"expected a Tool object, got {type(tool).__name__}")
    name = tool.name
    if not isinstance(name, str):
        raise ToolRegistrationError(f"name must be a string, got {type(name).__name__}")

    def fail(reason: str) -> ToolRegistrationError:
        return ToolRegistrationError(reason, tool_name=name)

    if len(name) > MAX_TOOL_NAME_CHARS:
        raise fail(f"name is {len(name)} characters long, more than {MAX_TOOL_NAME_CHARS}")
    if not TOOL_NAME_RE.fullmatch(name):
        raise fail(
            "name must be lowercase letters, digits, '_' and '-', with '.' only between "
            "non-empty segments (like 'notes.add')"
        )
    if name in registered or name in names:
        raise fail("duplicate name: a tool with this name is already registered")
    pname = provider_safe_name(name)
    other = registered_providers.get(pname) or providers.get(pname)
    if other is not None:
        raise fail(
            f"provider name {pname!r} collides with tool {other.name!r} (model providers and "
            "MCP clients see both as the same name once dots and dashes become '_'; rename one)"
        )
    for attr in ("title", "description"):
        if not isinstance(getattr(tool, attr), str):
            raise fail(f"{attr} must be a string")
    if not callable(tool.handler):
        raise fail("handler must be callable as handler(args, ctx)")
    if tool.check_args is not None and not callable(tool.check_args):
        raise fail("check_args must be callable as check_args(args) or None")
    try:
        permission = Permission(tool.permission)
    except ValueError:
        allowed = ", ".join(p.value for p in Permission)
        raise fail(f"permission {tool.permission!r} is not one of {allowed}") from None
    if tool.timeout_s is not None and (not is_finite_number(tool.timeout_s) or tool.timeout_s <= 0):
        raise fail(f"timeout_s must be a positive number of seconds, got {tool.timeout_s!r}")
    for problem in (
        approvals_required_problem(tool.approvals_required),
        approval_timeout_problem(tool.approval_timeout_s),
    ):
        if problem is not None:
            raise fail(problem)
    if not isinstance(tool.require_approver, bool):
        raise fail("require_approver must be true or false")
    if not isinstance(tool.annotations, ToolAnnotations):
        raise fail("annotations must be a ToolAnnotations")
    problem = annotations_problem(tool.annotations, write=tool.write)
    if problem is not None:
        raise fail(problem)
    problem = tags_problem(tool.tags)
    if problem is not None:
        raise fail(problem)
    if tool.card is not None and not isinstance(tool.card, str):
        raise fail("card must be a string or None")
    for attr in ("check", "confirmation"):
        if getattr(tool, attr) is not None and not callable(getattr(tool, attr)):
            raise fail(f"{attr} must be callable as {attr}(args, ctx) or None")
    if tool.execution not in ("server", "frontend"):
        raise fail(f"execution must be 'server' or 'frontend', got {tool.execution!r}")
    if not isinstance(tool.modal, bool):
        raise fail("modal must be a boolean")
    try:
        check_schema_rules(tool.input_schema, require_object_root=True)
    except SchemaRuleError as exc:
        raise fail(f"input_schema {exc}") from None
    output_validator = None
    if tool.output_schema is not None:
        try:
            check_schema_rules(tool.output_schema, require_object_root=False)
        except SchemaRuleError as exc:
            raise fail(f"output_schema {exc}") from None
        output_validator = make_validator(tool.output_schema)
    return pname, permission, make_validator(tool.input_schema), output_validator


def annotations_problem(annotations: ToolAnnotations, *, write: Any) -> str | None:
    """Return why declared annotations are inconsistent, or None when they are fine.

    Each hint is None (not declared) or a boolean; a ``write`` tool is not ``read_only``, and a
    ``read_only`` tool is not ``destructive``.
    """
    for key in ("read_only", "destructive", "idempotent", "open_world"):
        value = getattr(annotations, key)
        if value is not None and not isinstance(value, bool):
            return f"annotations.{key} must be true, false or None, got {value!r}"
    if write is True and annotations.read_only is True:
        return "a tool with write=True is not read_only"
    if annotations.read_only is True and annotations.destructive is True:
        return "a read_only tool is not destructive"
    return None


def tags_problem(tags: Any) -> str | None:
    """Return why ``tags`` is not a list of tags (see :data:`TAG_RE`), or None when it is."""
    if isinstance(tags, str) or not isinstance(tags, list | tuple | frozenset | set):
        return f"tags must be a list of strings, got {type(tags).__name__}"
    for tag in tags:
        if not isinstance(tag, str) or not TAG_RE.fullmatch(tag):
            return (
                f"tag {tag!r} must be 1 to 40 lowercase letters, digits, '_' or '-', "
                "starting with a letter or digit"
            )
    return None
