"""Per-connection listing options: exposition, tag filters and the read-only switch.

An MCP client picks them with query parameters on the ``/mcp`` URL
(``/mcp?exposition=grouped&tags=productivity&read_only=true``):

=================  =====================================================================
``exposition``     ``flat`` (default: one MCP tool per tool) or ``grouped`` (one per
                   namespace, with an ``action`` field)
``tags``           comma-separated; a tool must have **every** one (all-of)
``any_tags``       comma-separated; a tool must have **at least one** (any-of)
``exclude_tags``   comma-separated; a tool having **any** of them is left out
``read_only``      ``true``: only read tools (``Tool.hints().read_only``); ``false`` default
=================  =====================================================================

A tool's tags are its own plus its skill's (``Tool.tags``). Filters apply to Interlock tools
before grouping, so a grouped tool lists only the actions that pass. Other parameters (the
server's own, such as ``employee``) are ignored here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from interlock.errors import BadRequest
from interlock.tools import Tool
from interlock.tools.registry import TAG_RE

Exposition = Literal["flat", "grouped"]
EXPOSITIONS: tuple[Exposition, ...] = ("flat", "grouped")
QUERY_PARAMETERS = ("exposition", "tags", "any_tags", "exclude_tags", "read_only")
"""The query parameters :func:`parse_listing_options` reads."""
INVALID_OPTION = "invalid_mcp_option"
"""Error code of a bad listing option (``details={"parameter", "value"}``)."""

_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})
_TAG_LISTS = ("tags", "any_tags", "exclude_tags")


@dataclass(frozen=True)
class ListingOptions:
    """What one MCP connection lists.

    Attributes:
        exposition: ``flat`` or ``grouped``.
        tags: A tool must carry all of these.
        any_tags: When not empty, a tool must carry at least one of these.
        exclude_tags: A tool carrying any of these is left out.
        read_only: Only read tools (``Tool.hints().read_only``).
    """

    exposition: Exposition = "flat"
    tags: frozenset[str] = frozenset()
    any_tags: frozenset[str] = frozenset()
    exclude_tags: frozenset[str] = frozenset()
    read_only: bool = False

    def admits(self, tool: Tool) -> bool:
        """Return whether ``tool`` passes the tag filters and the read-only switch."""
        tags = set(tool.tags)
        if not self.tags <= tags:
            return False
        if self.any_tags and not self.any_tags & tags:
            return False
        if self.exclude_tags & tags:
            return False
        return not self.read_only or tool.hints().read_only

    def select(self, tools: Iterable[Tool]) -> list[Tool]:
        """Return the tools that pass, in the order given."""
        return [tool for tool in tools if self.admits(tool)]


def parse_listing_options(params: Mapping[str, str] | Iterable[tuple[str, str]]) -> ListingOptions:
    """Read :class:`ListingOptions` from a connection's query parameters.

    Args:
        params: Starlette ``QueryParams`` (repeated parameters are read through
            ``multi_items()``), any mapping, or ``(name, value)`` pairs. Only the names in
            :data:`QUERY_PARAMETERS` are read.

    Returns:
        The options. Tags are compared in lower case; a tag list parameter may be repeated
        (``tags=a&tags=b`` is ``tags=a,b``); empty items (``tags=a,``) are skipped.

    Raises:
        BadRequest: Code ``invalid_mcp_option``, ``details={"parameter", "value"}``: an
            ``exposition`` other than ``flat`` / ``grouped``; a ``read_only`` other than
            true/false (also 1/0, yes/no, on/off); a tag outside ``^[a-z0-9][a-z0-9_-]{0,39}$``;
            ``exposition`` or ``read_only`` given twice with different values; a tag both
            required (``tags`` / ``any_tags``) and excluded.
    """
    multi_items = getattr(params, "multi_items", None)
    pairs: list[tuple[str, str]]
    if callable(multi_items):
        pairs = list(multi_items())
    elif isinstance(params, Mapping):
        pairs = list(params.items())
    else:
        pairs = list(params)
    values: dict[str, list[str]] = {}
    for name, value in pairs:
        if name in QUERY_PARAMETERS:
            values.setdefault(name, []).append(str(value))

    exposition = _single(values, "exposition", "flat").strip().lower()
    if exposition not in EXPOSITIONS:
        raise _bad(
            "exposition",
            exposition,
            f"The exposition {exposition!r} is not one of: flat (one MCP tool per tool), "
            "grouped (one MCP tool per namespace).",
        )
    read_only_raw = _single(values, "read_only", "false")
    read_only = read_only_raw.strip().lower()
    if read_only not in _TRUE | _FALSE:
        raise _bad(
            "read_only", read_only_raw, f"read_only must be true or false, not {read_only_raw!r}."
        )
    tags = {name: _tags(name, values.get(name, [])) for name in _TAG_LISTS}
    for wanted in ("tags", "any_tags"):
        both = tags[wanted] & tags["exclude_tags"]
        if both:
            shown = ", ".join(sorted(both))
            raise _bad(
                "exclude_tags",
                shown,
                f"A tag cannot be both wanted ({wanted}) and excluded (exclude_tags): {shown}.",
            )
    return ListingOptions(
        exposition="grouped" if exposition == "grouped" else "flat",
        tags=tags["tags"],
        any_tags=tags["any_tags"],
        exclude_tags=tags["exclude_tags"],
        read_only=read_only in _TRUE,
    )


def _single(values: dict[str, list[str]], name: str, default: str) -> str:
    given = values.get(name, [])
    if not given:
        return default
    if len(set(given)) > 1:
        raise _bad(name, ", ".join(given), f"{name} is given twice, with different values.")
    return given[0]


def _tags(name: str, raw: list[str]) -> frozenset[str]:
    tags: set[str] = set()
    for value in raw:
        for item in value.split(","):
            tag = item.strip().lower()
            if not tag:
                continue
            if not TAG_RE.fullmatch(tag):
                raise _bad(
                    name,
                    item,
                    f"{name}: {item.strip()!r} is not a tag (tags are 1 to 40 letters, digits, "
                    "'_' or '-', separated by commas).",
                )
            tags.add(tag)
    return frozenset(tags)


def _bad(parameter: str, value: str, message: str) -> BadRequest:
    return BadRequest(
        message,
        code=INVALID_OPTION,
        details={"parameter": parameter, "value": value},
    )
