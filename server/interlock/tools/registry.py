"""The tool registry: registration rules, provider-safe names, validation and execution.

One :class:`ToolRegistry` holds every tool the engine may offer a model. Registration checks a
tool once (name, permission, timeout, schemas) so that later steps can trust it; validation
and execution are what the engine calls for each tool call:

1. ``registry.validate_args(tool, args)``: empty list, or field errors (the call fails with
   ``invalid_args`` and never runs);
2. ``await registry.execute(tool, args, ctx)``: a :class:`ToolResult`, or a :class:`ToolError`.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
import logging
import re
from collections.abc import Awaitable, Iterable
from functools import partial
from typing import Any, cast

import anyio
import anyio.to_thread

from interlock.tools.base import (
    FieldError,
    Permission,
    Tool,
    ToolAnnotations,
    ToolContext,
    ToolError,
    ToolResult,
)
from interlock.tools.schema import (
    SchemaRuleError,
    check_format_checkers,
    check_schema_rules,
    field_errors,
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
_HASH_CHARS = 8
_UNSAFE_RE = re.compile(r"[^a-zA-Z0-9_-]")

logger = logging.getLogger(__name__)


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

    Characters outside ``[a-zA-Z0-9_-]`` become ``_`` (``notes.add`` -> ``notes_add``). A
    result longer than 64 characters (or empty) keeps its first 55 characters and gets ``_``
    plus the first 8 hex digits of the SHA-256 of the original name (UTF-8), so it stays
    stable across restarts and distinct for names sharing a long prefix. The registry refuses
    two tools whose names map to the same result.

    Args:
        name: A tool name (any string).

    Returns:
        A string matching ``^[a-zA-Z0-9_-]{1,64}$``.
    """
    safe = _UNSAFE_RE.sub("_", name)
    if 0 < len(safe) <= PROVIDER_NAME_MAX:
        return safe
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_CHARS]
    return f"{safe[: PROVIDER_NAME_MAX - _HASH_CHARS - 1]}_{digest}"


class ToolRegistry:
    """The tools the engine may offer, by name and by provider name.

    Creating a registry first runs :func:`interlock.tools.schema.check_format_checkers`, so a
    server whose format checks are missing does not start.

    Args:
        max_result_chars: Result texts longer than this many characters are cut, with a note
            (the ``max_tool_result_chars`` setting; 60,000).
        default_timeout_s: Seconds a call may take when its tool declares no ``timeout_s``
            (the ``tool_timeout_s`` setting; 30).

    Raises:
        ValueError: When ``max_result_chars`` < 1 or ``default_timeout_s`` is not a positive
            finite number.
        RuntimeError: When the ``uri`` or ``email`` format checks are not active.
    """

    def __init__(self, max_result_chars: int = 60_000, default_timeout_s: float = 30.0) -> None:
        check_format_checkers()
        if isinstance(max_result_chars, bool) or not isinstance(max_result_chars, int):
            raise ValueError(f"max_result_chars must be an int, got {max_result_chars!r}")
        if max_result_chars < 1:
            raise ValueError(f"max_result_chars must be at least 1, got {max_result_chars}")
        if not is_finite_number(default_timeout_s) or default_timeout_s <= 0:
            raise ValueError(f"default_timeout_s must be > 0 seconds, got {default_timeout_s!r}")
        self.max_result_chars = max_result_chars
        self.default_timeout_s = float(default_timeout_s)
        self._tools: dict[str, Tool] = {}
        self._by_provider: dict[str, Tool] = {}
        self._input_validators: dict[str, Any] = {}
        self._output_validators: dict[str, Any] = {}

    # -- registration ------------------------------------------------------------------------

    def register(self, tool: Tool) -> Tool:
        """Check ``tool`` against every rule and add it.

        On success ``tool.provider_name`` is set (see :func:`provider_safe_name`) and a
        ``permission`` given as a plain string is turned into :class:`Permission`. The schemas
        are read now: changing them on the object later has no effect on validation.

        Args:
            tool: The tool to add.

        Returns:
            ``tool`` itself.

        Raises:
            ToolRegistrationError: With the first broken rule as ``reason``: name format or
                length, duplicate name, provider-name collision, title/description/handler
                type, invalid permission, ``timeout_s`` <= 0, or a schema rule from
                :func:`interlock.tools.schema.check_schema_rules` (object root, supported
                keywords, depth, size, Draft 2020-12 validity).
        """
        self.register_many([tool])
        return tool

    def register_many(self, tools: Iterable[Tool]) -> None:
        """Add several tools, all or none (a skill's tools go in together).

        Args:
            tools: The tools to add; they are checked against the registry and each other.

        Raises:
            ToolRegistrationError: As :meth:`register`; nothing is added.
        """
        names: dict[str, Tool] = {}
        providers: dict[str, Tool] = {}
        staged: list[tuple[Tool, str, Permission, Any, Any]] = []
        for tool in tools:
            pname, permission, input_validator, output_validator = self._check(
                tool, names, providers
            )
            names[tool.name] = tool
            providers[pname] = tool
            staged.append((tool, pname, permission, input_validator, output_validator))
        for tool, pname, permission, input_validator, output_validator in staged:
            tool.provider_name = pname
            tool.permission = permission
            self._tools[tool.name] = tool
            self._by_provider[pname] = tool
            self._input_validators[tool.name] = input_validator
            if output_validator is not None:
                self._output_validators[tool.name] = output_validator

    def _check(
        self, tool: Tool, names: dict[str, Tool], providers: dict[str, Tool]
    ) -> tuple[str, Permission, Any, Any]:
        """Apply every registration rule; return provider name, permission and validators."""
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
        if name in self._tools or name in names:
            raise fail("duplicate name: a tool with this name is already registered")
        pname = provider_safe_name(name)
        other = self._by_provider.get(pname) or providers.get(pname)
        if other is not None:
            raise fail(
                f"provider name {pname!r} collides with tool {other.name!r} "
                "(names must stay distinct after mapping to [a-zA-Z0-9_-]{1,64})"
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
        if tool.timeout_s is not None and (
            not is_finite_number(tool.timeout_s) or tool.timeout_s <= 0
        ):
            raise fail(f"timeout_s must be a positive number of seconds, got {tool.timeout_s!r}")
        if not isinstance(tool.annotations, ToolAnnotations):
            raise fail("annotations must be a ToolAnnotations")
        if tool.card is not None and not isinstance(tool.card, str):
            raise fail("card must be a string or None")
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

    # -- lookup ------------------------------------------------------------------------------

    def get(self, name: str) -> Tool | None:
        """Return the tool registered as ``name`` (``notes.add``), or None."""
        return self._tools.get(name)

    def by_provider_name(self, provider_name: str) -> Tool | None:
        """Return the tool whose provider name (as a model calls it: ``notes_add``) matches."""
        return self._by_provider.get(provider_name)

    def tools(self) -> list[Tool]:
        """Return every registered tool, sorted by name."""
        return [self._tools[name] for name in sorted(self._tools)]

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def provider_specs(self, tools: Iterable[Tool]) -> list[dict[str, Any]]:
        """Return ``tools`` in OpenAI's function format, for ``model.bind_tools(specs)``.

        Each spec is ``{"type": "function", "function": {"name": <provider_name>,
        "description": ..., "parameters": <input_schema>}}``. ``parameters`` is a copy without
        the root ``$schema`` and ``$id`` (identity keywords some providers reject).

        Args:
            tools: Registered tools, in the order the model should see them.

        Returns:
            One spec per tool.

        Raises:
            ValueError: When a tool is not registered here (it would have no provider name).
        """
        specs: list[dict[str, Any]] = []
        for tool in tools:
            if self._tools.get(tool.name) is not tool:
                raise ValueError(f"tool {tool.name!r} is not registered in this registry")
            parameters = copy.deepcopy(tool.input_schema)
            parameters.pop("$schema", None)
            parameters.pop("$id", None)
            specs.append(
                {
                    "type": "function",
                    "function": {
                        "name": tool.provider_name,
                        "description": tool.description,
                        "parameters": parameters,
                    },
                }
            )
        return specs

    # -- validation --------------------------------------------------------------------------

    def validate_args(self, tool: Tool, args: Any) -> list[FieldError]:
        """Check arguments against the tool's input schema, then its ``check_args``.

        Validation is JSON Schema Draft 2020-12 with format checks (``uri``, ``email``,
        ``date-time``...). Integers follow JSON Schema: ``2.5`` and ``"2"`` fail
        ``"type": "integer"`` (``2.0`` passes); ``true`` is not a number. ``tool.check_args``
        runs only when the schema passed, so it may trust the shape.

        Args:
            tool: A tool (registered tools use the validator built at registration).
            args: The decoded arguments, of any JSON type.

        Returns:
            ``[]`` when valid. When ``args`` is not an object: one error with path ``[]`` and
            rule ``type``. Otherwise schema errors sorted by path (see
            :func:`interlock.tools.schema.field_errors`), or ``check_args``'s errors.

        Never raises: when ``tool.check_args`` itself raises or returns something other than a
        list of :class:`FieldError` (a bug in the tool), the result is one error with path
        ``[]`` and rule ``check_args`` (logged with its traceback), so the call is refused.
        """
        if not isinstance(args, dict):
            kind = "null" if args is None else type(args).__name__
            return [
                FieldError(
                    path=[], message=f"Arguments must be a JSON object, got {kind}.", rule="type"
                )
            ]
        validator = self._input_validators.get(tool.name)
        if validator is None or self._tools.get(tool.name) is not tool:
            validator = make_validator(tool.input_schema)
        errors = field_errors(validator, args)
        if errors or tool.check_args is None:
            return errors
        try:
            extra = tool.check_args(copy.deepcopy(args))
        except Exception as exc:
            logger.exception("check_args of tool %r raised", tool.name)
            return [_check_bug(tool, f"raised {type(exc).__name__}: {exc}")]
        if not isinstance(extra, list) or not all(isinstance(e, FieldError) for e in extra):
            logger.error("check_args of tool %r returned %r", tool.name, extra)
            return [_check_bug(tool, "did not return a list of FieldError")]
        return list(extra)

    # -- execution ---------------------------------------------------------------------------

    async def execute(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
        """Run the tool's handler with a timeout and return its normalized result.

        Arguments are not validated here: call :meth:`validate_args` first. The handler gets a
        deep copy of ``args``. An async handler runs on the event loop; a sync one in a worker
        thread (``anyio.to_thread.run_sync``). At the timeout an async handler is cancelled;
        a sync one cannot be stopped, so its thread runs on and its result is discarded.

        Args:
            tool: The tool to run.
            args: Validated arguments.
            ctx: The call's context.

        Returns:
            A new :class:`ToolResult`: a ``str`` return becomes ``ToolResult(text)``; text longer
            than ``max_result_chars`` keeps its head and ends with
            ``"\\n\\n[Result cut: showing 60,000 of 5,000,000 characters; 4,940,000 cut.]"``.

        Raises:
            ToolError: ``timeout`` past ``tool.timeout_s`` (or ``default_timeout_s``) seconds;
                the handler's own :class:`ToolError` unchanged; ``failed`` when the handler
                raises anything else (message ``"<ExceptionType>: <text>"``), returns neither
                ``ToolResult`` nor ``str``, returns data that is not JSON or that does not match
                ``output_schema``.
        """
        timeout = tool.timeout_s if tool.timeout_s is not None else self.default_timeout_s
        try:
            with anyio.fail_after(timeout):
                raw = await self._call(tool, copy.deepcopy(args), ctx)
        except TimeoutError:
            raise ToolError(
                "timeout",
                f"Tool '{tool.name}' did not finish within {timeout:g} seconds.",
                hint="Try again later, or with a smaller request.",
            ) from None
        return self._finish(tool, raw)

    async def _call(self, tool: Tool, args: dict[str, Any], ctx: ToolContext) -> object:
        """Run the handler; turn any exception but ToolError (and cancellation) into ``failed``."""
        handler = tool.handler
        try:
            if _is_async(handler):
                return await cast(Awaitable[object], handler(args, ctx))
            out: object = await anyio.to_thread.run_sync(
                partial(handler, args, ctx), abandon_on_cancel=True
            )
            if inspect.isawaitable(out):  # a sync callable that returned a coroutine
                out = await out
            return out
        except ToolError:
            raise
        except Exception as exc:
            logger.warning("Tool %r raised %s", tool.name, type(exc).__name__, exc_info=True)
            raise ToolError(
                "failed", f"Tool '{tool.name}' raised {type(exc).__name__}: {exc}"
            ) from exc

    def _finish(self, tool: Tool, raw: object) -> ToolResult:
        """Normalize, check and cut a handler's return value."""
        if isinstance(raw, str):
            result = ToolResult(text=raw)
        elif isinstance(raw, ToolResult) and isinstance(raw.text, str):
            result = ToolResult(text=raw.text, data=raw.data)
        else:
            raise ToolError(
                "failed",
                f"Tool '{tool.name}' returned {type(raw).__name__}; expected ToolResult or str.",
            )
        if result.data is not None:
            try:
                json.dumps(result.data, allow_nan=False)
            except (TypeError, ValueError) as exc:
                raise ToolError(
                    "failed", f"Tool '{tool.name}' returned data that is not JSON: {exc}"
                ) from None
        if tool.output_schema is not None:
            validator = self._output_validators.get(tool.name)
            if validator is None or self._tools.get(tool.name) is not tool:
                validator = make_validator(tool.output_schema)
            errors = field_errors(validator, result.data)
            if errors:
                first = errors[0]
                where = "/".join(str(p) for p in first.path) or "(root)"
                raise ToolError(
                    "failed",
                    f"Tool '{tool.name}' returned data that does not match its output schema "
                    f"at {where}: {first.message}",
                    details=[e.as_dict() for e in errors],
                )
        result.text = self.cut_text(result.text)
        return result

    def cut_text(self, text: str) -> str:
        """Return ``text``, or its first ``max_result_chars`` characters plus a size note.

        Args:
            text: A result text.

        Returns:
            ``text`` unchanged when short enough; else the head and
            ``"\\n\\n[Result cut: showing {kept:,} of {total:,} characters; {cut:,} cut.]"``.
        """
        total = len(text)
        limit = self.max_result_chars
        if total <= limit:
            return text
        return (
            f"{text[:limit]}\n\n[Result cut: showing {limit:,} of {total:,} characters; "
            f"{total - limit:,} cut.]"
        )


def _check_bug(tool: Tool, what: str) -> FieldError:
    return FieldError(
        path=[], message=f"The argument check of tool '{tool.name}' {what}.", rule="check_args"
    )


def _is_async(handler: object) -> bool:
    """True for ``async def`` functions (also behind ``functools.partial``) and async callables."""
    return inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(
        type(handler).__call__
    )
