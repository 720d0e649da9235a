"""One MCP connection's tools: MCP tool definitions, pages of the list, calls mapped back.

Use (the ``/mcp`` server; the caller has already removed what the user and employee may not
use, DENY tools included)::

    options = parse_listing_options(request.query_params)  # BadRequest invalid_mcp_option
    exposition = Exposition(visible_tools, options)
    exposition.list_page(cursor, settings.mcp_page_size)    # ListToolsResult; invalid_cursor
    call = exposition.resolve(name, arguments)              # ResolvedCall(tool, arguments, ...)
    # unknown_tool / missing_action / unknown_action / invalid_args as BadRequest
    ...  # the normal gate validates call.arguments against call.tool and runs it
    exposition.structured_content(call, result.data)        # CallToolResult.structured_content

Pass ``request.query_params`` itself (not ``dict(...)``), so a repeated ``tags=`` counts.

Definitions (``mcp.types.Tool``), by exposition:

* ``flat`` (default): one MCP tool per tool. ``name`` is the tool's provider-safe name
  (``notes_add``: ``[a-zA-Z0-9_]``, at most 64 characters, unique because the registry
  refuses collisions), ``title``, ``description``, ``input_schema`` exactly as declared,
  ``output_schema`` when the tool declares one whose root is an object (MCP up to 2025-11-25
  allows no other), and ``annotations`` from ``Tool.hints()``: ``read_only_hint`` for read
  tools, ``destructive_hint`` for write tools unless they declare ``destructive=False``,
  ``idempotent_hint``, ``open_world_hint`` (rules in :class:`interlock.tools.base.ToolHints`).
* ``grouped``: one MCP tool per namespace (``notes`` for ``notes.add``, ``notes.delete``...;
  the namespace is the name before its last dot), with a required ``action`` field whose
  enum lists the actions and the other fields merged (:mod:`~interlock.mcp_bridge.grouping`).
  Annotations are the safest aggregate: read-only and idempotent only if every action is,
  destructive and open-world if any is. An output schema only when every action declares an
  object one (``anyOf`` of them). A tool without a namespace, or with its own ``action``
  field, stays flat. The name is the namespace's provider-safe name (``mcp.github`` ->
  ``mcp_github``); should it equal a name already listed, it gets ``_`` and 8 hex digits of
  the namespace's SHA-256 instead (within 64 characters).

The list is sorted by MCP name; pages follow :mod:`~interlock.mcp_bridge.paging`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import mcp.types as types

from interlock.errors import BadRequest
from interlock.mcp_bridge.definitions import flat_definition, group_name, grouped_definition
from interlock.mcp_bridge.grouping import ACTION_FIELD, can_group, split_name
from interlock.mcp_bridge.options import ListingOptions
from interlock.mcp_bridge.paging import page
from interlock.tools import Tool

UNKNOWN_TOOL = "unknown_tool"
"""Error code: no MCP tool of that name on this connection (``details={"tool"}``)."""
UNKNOWN_ACTION = "unknown_action"
"""Error code: a grouped tool called with an action it does not have
(``details={"tool", "actions"}``)."""
MISSING_ACTION = "missing_action"
"""Error code: a grouped tool called without ``action`` (``details={"tool", "actions"}``)."""
INVALID_ARGS = "invalid_args"
"""Error code: the arguments are not a JSON object (``details={"tool"}``)."""


@dataclass(frozen=True)
class ExposedTool:
    """One MCP tool of a listing.

    Attributes:
        name: Its MCP name.
        definition: What ``tools/list`` returns for it.
        tool: The Interlock tool, for a flat one; None for a grouped one.
        actions: Action -> Interlock tool, for a grouped one; empty for a flat one.
    """

    name: str
    definition: types.Tool
    tool: Tool | None = None
    actions: Mapping[str, Tool] = field(default_factory=dict)


@dataclass(frozen=True)
class ResolvedCall:
    """An MCP call mapped back to Interlock.

    Attributes:
        tool: The Interlock tool to run (through the normal gate).
        arguments: Its arguments: the MCP arguments (a copy) without ``action``.
        mcp_name: The MCP tool name called.
        action: The action of a grouped tool; None for a flat one.
    """

    tool: Tool
    arguments: dict[str, Any]
    mcp_name: str
    action: str | None = None


class Exposition:
    """The MCP tools one connection sees.

    Args:
        tools: The Interlock tools the connection may see (registered: each has its
            ``provider_name``), in any order.
        options: Exposition and filters; tools the filters leave out are not listed and
            cannot be called through this exposition.

    Raises:
        ValueError: When a tool is not registered (no provider name) or two tools share a
            name.
    """

    def __init__(self, tools: Iterable[Tool], options: ListingOptions | None = None) -> None:
        self.options = options or ListingOptions()
        selected = self.options.select(tools)
        seen: set[str] = set()
        for tool in selected:
            if not tool.provider_name:
                raise ValueError(f"tool {tool.name!r} is not registered (no provider name)")
            if tool.name in seen:
                raise ValueError(f"tool {tool.name!r} is given twice")
            seen.add(tool.name)
        exposed = _grouped(selected) if self.options.exposition == "grouped" else _flat(selected)
        self.tools: list[ExposedTool] = sorted(exposed, key=lambda e: e.name)
        self._by_name = {e.name: e for e in self.tools}
        self._names = [e.name for e in self.tools]
        # Other names of a listed tool (its Interlock name, and its flat name when grouped),
        # for the unknown_tool message: descriptions and hints name tools as Interlock does.
        self._listed_as: dict[str, str] = {}
        for e in self.tools:
            if e.tool is not None:
                self._listed_as[e.tool.name] = repr(e.name)
            for action, tool in e.actions.items():
                where = f"{e.name!r} with action {action!r}"
                self._listed_as[tool.name] = self._listed_as[tool.provider_name] = where

    def definitions(self) -> list[types.Tool]:
        """Return every MCP tool definition, sorted by name."""
        return [e.definition for e in self.tools]

    def get(self, name: str) -> ExposedTool | None:
        """Return the MCP tool called ``name``, or None."""
        return self._by_name.get(name)

    def list_page(self, cursor: str | None, page_size: int) -> types.ListToolsResult:
        """Return one page of the list (``next_cursor`` None on the last page).

        Args:
            cursor: None for the first page, else the previous page's ``next_cursor``.
            page_size: Tools per page (the ``mcp_page_size`` setting), at least 1.

        Raises:
            BadRequest: Code ``invalid_cursor`` for a cursor this server did not give out.
        """
        chunk, following = page(self._names, self.tools, cursor, page_size)
        return types.ListToolsResult(tools=[e.definition for e in chunk], next_cursor=following)

    def resolve(self, name: str, arguments: Mapping[str, Any] | None) -> ResolvedCall:
        """Map an MCP call (name, arguments) back to an Interlock tool and its arguments.

        The arguments are not validated here (the normal gate does it, with the tool's own
        schema, so an action's required fields are checked then).

        Raises:
            BadRequest: ``unknown_tool`` (no such MCP tool on this connection),
                ``invalid_args`` (arguments not an object), ``missing_action`` (a grouped
                tool called without ``action``), ``unknown_action`` (an action not in its
                enum); ``details`` name the tool and, for the last two, its actions.
        """
        exposed = self._by_name.get(name)
        if exposed is None:
            listed_as = self._listed_as.get(name)
            advice = (
                f"it is listed as {listed_as}"
                if listed_as is not None
                else "list the tools to see the names"
            )
            raise BadRequest(
                f"There is no tool {shown(name)} on this connection; {advice}.",
                code=UNKNOWN_TOOL,
                details={"tool": name[:MAX_SHOWN_CHARS]},
            )
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, Mapping):
            raise BadRequest(
                f"The arguments of {name!r} must be a JSON object.",
                code=INVALID_ARGS,
                details={"tool": name[:MAX_SHOWN_CHARS]},
            )
        args = copy.deepcopy(dict(arguments))
        if exposed.tool is not None:
            return ResolvedCall(tool=exposed.tool, arguments=args, mcp_name=name)
        actions = sorted(exposed.actions)
        details = {"tool": name, "actions": actions}
        if ACTION_FIELD not in args:
            raise BadRequest(
                f"The tool {name!r} needs an action: one of {', '.join(actions)}.",
                code=MISSING_ACTION,
                details=details,
            )
        action = args.pop(ACTION_FIELD)
        tool = exposed.actions.get(action) if isinstance(action, str) else None
        if tool is None:
            raise BadRequest(
                f"The tool {name!r} has no action {shown(action)}; use one of "
                f"{', '.join(actions)}.",
                code=UNKNOWN_ACTION,
                details=details,
            )
        return ResolvedCall(tool=tool, arguments=args, mcp_name=name, action=action)

    def declares_output(self, call: ResolvedCall) -> bool:
        """Whether the MCP tool ``call`` was made through declares an output schema (its
        successful results must then carry ``structured_content``)."""
        exposed = self._by_name.get(call.mcp_name)
        return exposed is not None and exposed.definition.output_schema is not None

    def structured_content(self, call: ResolvedCall, data: Any) -> dict[str, Any] | None:
        """Return a call result's ``structured_content``: its data, when the MCP tool
        declares an output schema and the data is an object; else None."""
        exposed = self._by_name.get(call.mcp_name)
        if exposed is None or exposed.definition.output_schema is None:
            return None
        return data if isinstance(data, dict) else None


MAX_SHOWN_CHARS = 80
"""Longest piece of a caller's input quoted back in an error (a name or action can be huge)."""


def shown(value: Any) -> str:
    """``repr(value)``, cut to :data:`MAX_SHOWN_CHARS` characters with ``…``."""
    text = repr(value)
    return text if len(text) <= MAX_SHOWN_CHARS else f"{text[: MAX_SHOWN_CHARS - 1]}…"


def _flat(tools: list[Tool]) -> list[ExposedTool]:
    return [ExposedTool(name=t.provider_name, definition=flat_definition(t), tool=t) for t in tools]


def _grouped(tools: list[Tool]) -> list[ExposedTool]:
    exposed = [
        ExposedTool(name=t.provider_name, definition=flat_definition(t), tool=t)
        for t in tools
        if not can_group(t)
    ]
    taken = {e.name for e in exposed}
    namespaces: dict[str, dict[str, Tool]] = {}
    for tool in tools:
        namespace, action = split_name(tool.name)
        if namespace is not None and can_group(tool):
            namespaces.setdefault(namespace, {})[action] = tool
    for namespace in sorted(namespaces):
        name = group_name(namespace, taken)
        taken.add(name)
        actions = dict(sorted(namespaces[namespace].items()))
        exposed.append(
            ExposedTool(
                name=name, definition=grouped_definition(name, namespace, actions), actions=actions
            )
        )
    return exposed
