"""The tool registry: the tools the engine may offer, validation and execution entry points.

One :class:`ToolRegistry` holds every tool the engine may offer a model. Registration checks a
tool once (name, permission, timeout, schemas; the rules are in
:mod:`interlock.tools.registration`) so that later steps can trust it; validation and execution
(run by :mod:`interlock.tools.execution`) are what the engine calls for each tool call:

1. ``registry.validate_args(tool, args)``: empty list, or field errors (the call fails with
   ``invalid_args`` and never runs);
2. ``await registry.execute(tool, args, ctx)``: a :class:`ToolResult`, or a :class:`ToolError`.

What a model is sent of the tools (``registry.provider_specs(tools)``) is built by
:mod:`interlock.tools.provider_specs`.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import threading
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from langchain_core.tools import BaseTool

from interlock.tools.base import FieldError, Permission, Tool, ToolContext, ToolResult
from interlock.tools.execution import ToolTimedOut, cap_data, check_result, retrieved, run_handler
from interlock.tools.execution import cut_text as _cut_text
from interlock.tools.groups import ToolGroups
from interlock.tools.provider_specs import ProviderSpecs
from interlock.tools.registration import (
    MAX_TOOL_NAME_CHARS,
    PROVIDER_NAME_MAX,
    PROVIDER_NAME_RE,
    TAG_RE,
    TOOL_NAME_RE,
    ToolRegistrationError,
    check_tool,
    provider_safe_name,
)
from interlock.tools.schema import (
    check_format_checkers,
    control_character_errors,
    field_errors,
    is_finite_number,
    make_validator,
)
from interlock.tools.schema.strict import StrictForm

__all__ = [
    "MAX_TOOL_NAME_CHARS",
    "PROVIDER_NAME_MAX",
    "PROVIDER_NAME_RE",
    "TAG_RE",
    "TOOL_NAME_RE",
    "ToolRegistrationError",
    "ToolRegistry",
    "provider_safe_name",
]

logger = logging.getLogger(__name__)


class ToolRegistry(ToolGroups, ProviderSpecs):
    """The tools the engine may offer, by name and by provider name.

    Creating a registry first runs :func:`interlock.tools.schema.check_format_checkers`, so a
    server whose format checks are missing does not start.

    Args:
        max_result_chars: Result texts longer than this many characters are cut, with a note
            (the ``max_tool_result_chars`` setting; 60,000).
        default_timeout_s: Seconds a call may take when its tool declares no ``timeout_s``
            (the ``tool_timeout_s`` setting; 30).
        strict_tools: Ask for strict tool calling (the ``model_strict_tools`` setting): each
            provider spec carries ``"strict": true`` and a strict-valid form of its schema, or
            no ``strict`` when its schema has none (see
            :mod:`interlock.tools.schema.strict`).

    Raises:
        ValueError: When ``max_result_chars`` < 1 or ``default_timeout_s`` is not a positive
            finite number.
        RuntimeError: When the ``uri`` or ``email`` format checks are not active.

    Groups of tools that change while the server runs (a remote MCP server's) are swapped and
    awaited by the methods of :class:`interlock.tools.groups.ToolGroups`; the specs a model is
    sent are built by those of :class:`interlock.tools.provider_specs.ProviderSpecs`.
    """

    def __init__(
        self,
        max_result_chars: int = 60_000,
        default_timeout_s: float = 30.0,
        *,
        strict_tools: bool = False,
    ) -> None:
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
        self._replacing = threading.Lock()
        self.strict_tools = strict_tools
        self._strict_forms: dict[str, StrictForm] = {}
        self._expected: dict[str, Callable[[str], Awaitable[Tool | None]]] = {}

    # -- registration ------------------------------------------------------------------------

    def register(self, tool: Tool | BaseTool, **langchain_options: Any) -> Tool:
        """Check ``tool`` against every rule and add it.

        On success ``tool.provider_name`` is set (see :func:`provider_safe_name`) and a
        ``permission`` given as a plain string is turned into :class:`Permission`. The schemas
        are read now: changing them on the object later has no effect on validation.

        A LangChain tool (``BaseTool``, ``@tool``) is adapted first by
        :func:`interlock.adapters.langchain_tools.from_langchain`, with ``langchain_options``
        (``write`` is required; ``name``, ``title``, ``permission``...):
        ``registry.register(search, write=False)``.

        Args:
            tool: The tool to add, or a LangChain tool.
            **langchain_options: Passed to ``from_langchain``; only with a LangChain tool.

        Returns:
            The registered :class:`Tool` (``tool`` itself, or the adapted LangChain tool).

        Raises:
            ToolRegistrationError: With the first broken rule as ``reason``: name format or
                length, duplicate name, provider-name collision, title/description/handler
                type, invalid permission, ``timeout_s`` <= 0, or a schema rule from
                :func:`interlock.tools.schema.check_schema_rules` (object root, supported
                keywords, depth, size, Draft 2020-12 validity); for a LangChain tool also
                ``write`` not stated as True or False.
        """
        if isinstance(tool, BaseTool):
            # Imported here: the adapters build Tool objects, so they import this package.
            from interlock.adapters.langchain_tools import from_langchain

            tool = from_langchain(tool, **langchain_options)
        elif langchain_options:
            names = ", ".join(sorted(langchain_options))
            raise ToolRegistrationError(
                f"options {names} are only for a LangChain tool; set them on the Tool",
                tool_name=getattr(tool, "name", None),
            )
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
            pname, permission, input_validator, output_validator = check_tool(
                tool,
                registered=self._tools,
                registered_providers=self._by_provider,
                names=names,
                providers=providers,
            )
            names[tool.name] = tool
            providers[pname] = tool
            staged.append((tool, pname, permission, input_validator, output_validator))
        for tool, pname, permission, input_validator, output_validator in staged:
            tool.provider_name = pname
            tool.permission = permission
            tool.tags = tuple(sorted(set(tool.tags)))
            self._tools[tool.name] = tool
            self._by_provider[pname] = tool
            self._input_validators[tool.name] = input_validator
            if output_validator is not None:
                self._output_validators[tool.name] = output_validator

    # -- lookup ------------------------------------------------------------------------------

    def get(self, name: str) -> Tool | None:
        """Return the tool registered as ``name`` (``notes.add``), or None."""
        return self._tools.get(name)

    def by_provider_name(self, provider_name: str) -> Tool | None:
        """Return the tool whose provider name (as a model calls it: ``notes_add``) matches."""
        return self._by_provider.get(provider_name)

    def tools(self) -> list[Tool]:
        """Return every registered tool, sorted by name."""
        tools = self._tools  # one table, also while a group is being replaced
        return [tools[name] for name in sorted(tools)]

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

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
        errors = field_errors(validator, args) + control_character_errors(args)
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
        a sync one cannot be stopped, so its thread runs on: the error's ``still_running``
        gives its result (checked as here) or raises its error when it returns.

        Args:
            tool: The tool to run.
            args: Validated arguments.
            ctx: The call's context.

        Returns:
            A new :class:`ToolResult`: a ``str`` return becomes ``ToolResult(text)``; text longer
            than ``max_result_chars`` keeps its head and ends with a note (see
            :func:`interlock.tools.execution.cut_text`), and the whole text is kept in
            ``full_text``; data whose JSON is longer than ``max_result_chars`` is dropped,
            with a note (:func:`interlock.tools.execution.cap_data`).

        Raises:
            ToolError: ``timeout`` past ``tool.timeout_s`` (or ``default_timeout_s``) seconds;
                the handler's own :class:`ToolError` unchanged; ``failed`` when the handler
                raises anything else (message ``"<ExceptionType>: <text>"``), returns neither
                ``ToolResult`` nor ``str``, or returns data that is not JSON; ``invalid_output``
                when the data does not match ``output_schema`` (the message and
                ``details=[{"path", "rule"}]`` name where, never the value: no returned data
                reaches the model or the card).
        """
        timeout = tool.timeout_s if tool.timeout_s is not None else self.default_timeout_s
        try:
            raw = await run_handler(tool, args, ctx, timeout)
        except ToolTimedOut as exc:
            if exc.still_running is not None:
                exc.still_running = retrieved(
                    asyncio.ensure_future(self._late(tool, exc.still_running))
                )
            raise
        return self._result(tool, raw)

    async def _late(self, tool: Tool, thread: asyncio.Future[Any]) -> ToolResult:
        """The result of a sync handler that returned after its timeout."""
        return self._result(tool, await thread)

    def _result(self, tool: Tool, raw: object) -> ToolResult:
        """The handler's return value checked, cut and capped (:meth:`execute`)."""
        result = check_result(tool, raw, lambda schema: self._output_validator(tool, schema))
        if len(result.text) > self.max_result_chars:
            result.full_text = result.text
            result.text = self.cut_text(result.text)
        return cap_data(result, self.max_result_chars)

    def output_errors(self, tool: Tool, data: Any) -> list[FieldError]:
        """Check result ``data`` against the tool's ``output_schema`` (``[]`` without one).

        Used for results that come from outside the server (a frontend tool's browser).

        Returns:
            Field errors sorted by path; ``[]`` when the data fits.
        """
        if tool.output_schema is None:
            return []
        return field_errors(self._output_validator(tool, tool.output_schema), data)

    def _output_validator(self, tool: Tool, schema: dict[str, Any]) -> Any:
        """The output validator built at registration, or a new one for an unregistered tool."""
        validator = self._output_validators.get(tool.name)
        if validator is None or self._tools.get(tool.name) is not tool:
            validator = make_validator(schema)
        return validator

    def cut_text(self, text: str) -> str:
        """Return ``text``, or its first ``max_result_chars`` characters plus a size note.

        Args:
            text: A result text.

        Returns:
            ``text`` unchanged when short enough; else the head and a note saying exactly
            what was kept (see :func:`interlock.tools.execution.cut_text`).
        """
        return _cut_text(text, self.max_result_chars)


def _check_bug(tool: Tool, what: str) -> FieldError:
    return FieldError(
        path=[],
        message=f"The argument check of the tool {tool.display_name} {what}.",
        rule="check_args",
    )
