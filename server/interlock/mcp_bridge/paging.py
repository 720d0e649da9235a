"""Opaque, stable cursors over a list sorted by name (MCP ``tools/list`` pagination).

A cursor names the last item of the page before it (keyset pagination), so walking a list
while tools come and go never repeats or skips a tool that stayed: the next page starts after
that name, wherever it is now. It is base64url of a small JSON object; clients must treat it
as opaque (MCP, "Pagination").
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
from collections.abc import Sequence
from typing import TypeVar

from interlock.errors import BadRequest
from interlock.json_words import JSON_ERRORS

INVALID_CURSOR = "invalid_cursor"
"""Error code of a cursor this server did not issue (MCP maps it to "Invalid params")."""
MAX_CURSOR_CHARS = 1024
_NOT_A_CURSOR: tuple[type[Exception], ...] = (*JSON_ERRORS, binascii.Error, KeyError, TypeError)
"""What reading a cursor this server did not give out can raise (JSON's errors included)."""

T = TypeVar("T")


def encode_cursor(after: str) -> str:
    """Return the cursor of the page that starts after the item named ``after``."""
    raw = json.dumps({"v": 1, "after": after}, separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def decode_cursor(cursor: str) -> str:
    """Return the name a cursor from :func:`encode_cursor` starts after.

    Raises:
        BadRequest: Code ``invalid_cursor`` when ``cursor`` is not one of ours.
    """
    try:
        if not isinstance(cursor, str) or not cursor or len(cursor) > MAX_CURSOR_CHARS:
            raise ValueError("empty or too long")
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        data = json.loads(raw.decode("utf-8"))
        after = data["after"] if isinstance(data, dict) and data.get("v") == 1 else None
        if not isinstance(after, str):
            raise ValueError("not a cursor")
    except _NOT_A_CURSOR:
        raise BadRequest(
            "The cursor is not one this server gave out; list again from the first page "
            "(no cursor).",
            code=INVALID_CURSOR,
        ) from None
    return after


def page(
    names: Sequence[str], items: Sequence[T], cursor: str | None, page_size: int
) -> tuple[list[T], str | None]:
    """Return one page of ``items`` and the cursor of the next page (None on the last one).

    Args:
        names: The items' names, sorted ascending and distinct (``names[i]`` names
            ``items[i]``).
        items: The items.
        cursor: None for the first page, else a cursor from a previous page.
        page_size: Items per page, at least 1.

    Raises:
        BadRequest: Code ``invalid_cursor`` (see :func:`decode_cursor`).
        ValueError: When ``page_size`` < 1.
    """
    if page_size < 1:
        raise ValueError(f"page_size must be at least 1, got {page_size}")
    start = 0 if cursor is None else bisect.bisect_right(names, decode_cursor(cursor))
    end = start + page_size
    chunk = list(items[start:end])
    following = encode_cursor(names[end - 1]) if end < len(items) else None
    return chunk, following
