"""Tool groups: tools whose list changes while the server runs (a remote MCP server's).

:class:`ToolGroups` is the part of :class:`interlock.tools.registry.ToolRegistry` that swaps a
whole group of tools in one step and waits for a group that is still connecting.
"""

from __future__ import annotations

import threading
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from interlock.tools.base import Tool
from interlock.tools.registration import ToolRegistrationError, check_tool

__all__ = ["ToolGroups"]


class ToolGroups:
    """Group swaps and expected groups over the registry's tables (a mixin of ToolRegistry)."""

    _tools: dict[str, Tool]
    _by_provider: dict[str, Tool]
    _input_validators: dict[str, Any]
    _output_validators: dict[str, Any]
    _replacing: threading.Lock
    _expected: dict[str, Callable[[str], Awaitable[Tool | None]]]

    def replace_group(self, prefix: str, tools: Iterable[Tool]) -> dict[str, str]:
        """Swap every tool whose name starts with ``prefix`` for ``tools``, in one step.

        Used for tools whose list changes while the server runs (a remote MCP server's). The
        new tables are built aside and swapped in at once, so a reader never sees half a
        change. Each tool is checked like :meth:`register`; a tool that breaks a rule is left
        out and reported, the others go in.

        Callable from any thread: group replacements are serialised (a lock), so two groups
        replaced at once never undo each other.

        Args:
            prefix: Name prefix of the group, e.g. ``mcp.docs.``; every tool must start with it.
            tools: The group's tools now.

        Returns:
            Tool name -> why it was refused (the :class:`ToolRegistrationError` text);
            empty when all went in.
        """
        with self._replacing:
            return self._replace_group(prefix, tools)

    def _replace_group(self, prefix: str, tools: Iterable[Tool]) -> dict[str, str]:
        names = {n: t for n, t in self._tools.items() if not n.startswith(prefix)}
        providers = {p: t for p, t in self._by_provider.items() if t.name in names}
        inputs = {n: v for n, v in self._input_validators.items() if n in names}
        outputs = {n: v for n, v in self._output_validators.items() if n in names}
        refused: dict[str, str] = {}
        for tool in tools:
            if not str(tool.name).startswith(prefix):
                refused[str(tool.name)] = f"name does not start with {prefix!r}"
                continue
            try:
                pname, permission, input_validator, output_validator = check_tool(
                    tool, registered=names, registered_providers=providers, names={}, providers={}
                )
            except ToolRegistrationError as exc:
                refused[tool.name] = str(exc)
                continue
            tool.provider_name, tool.permission = pname, permission
            names[tool.name], providers[pname] = tool, tool
            inputs[tool.name] = input_validator
            if output_validator is not None:
                outputs[tool.name] = output_validator
        self._tools, self._by_provider = names, providers
        self._input_validators, self._output_validators = inputs, outputs
        return refused

    def expect_group(
        self, prefix: str, finder: Callable[[str], Awaitable[Tool | None]] | None
    ) -> None:
        """Say that tools named ``prefix...`` may appear later (a remote MCP server still
        connecting): :meth:`resolve` then awaits ``finder(name)`` for such a name that is not
        registered. ``None`` forgets the prefix."""
        if finder is None:
            self._expected.pop(prefix, None)
        else:
            self._expected[prefix] = finder

    def expects(self, name: str) -> bool:
        """True when ``name`` is not registered but its group may still appear (see
        :meth:`expect_group`)."""
        return name not in self._tools and any(name.startswith(p) for p in self._expected)

    async def resolve(self, name: str) -> Tool | None:
        """Return the tool ``name``, waiting for it when its group is expected (see
        :meth:`expect_group`); None when it is not there.

        Raises:
            ToolError: From the group's finder, e.g. ``upstream_error`` when the remote
                server stays unreachable.
        """
        tool = self._tools.get(name)
        if tool is not None:
            return tool
        for prefix, finder in list(self._expected.items()):
            if name.startswith(prefix):
                return await finder(name)
        return None
