"""Keyset pages of a person's conversations, most recently active first.

The list is ordered by ``(updated_at, id)`` descending. A cursor names the last conversation
of the page before it (its ``updated_at`` and ``id``), so the next page starts right after it
wherever new conversations were inserted meanwhile: a walk never repeats or skips one that
stayed put. A conversation that becomes active during a walk moves to the first page (it is
not listed twice). A cursor is base64url of a small JSON object; callers treat it as opaque.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import tuple_
from sqlmodel import Session, col, select

from interlock.errors import BadRequest
from interlock.json_words import JSON_ERRORS
from interlock.storage import Conversation
from interlock.storage.models.common import as_utc
from interlock.text import check_storable

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
INVALID_CURSOR = "invalid_cursor"
"""Error code (422) of a cursor this server did not give out."""
MAX_CURSOR_CHARS = 512
_NOT_A_CURSOR: tuple[type[Exception], ...] = (
    *JSON_ERRORS,
    OverflowError,
    binascii.Error,
    KeyError,
    TypeError,
)
"""What reading a cursor the server did not give out can raise (JSON's errors included)."""
NEXT_CURSOR_HEADER = "Next-Cursor"
"""Response header with the cursor of the next page (absent on the last page)."""


def encode_cursor(conversation: Conversation) -> str:
    """Return the cursor of the page that starts after ``conversation``."""
    updated = as_utc(conversation.updated_at).isoformat()
    raw = json.dumps({"v": 1, "u": updated, "i": conversation.id}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode("utf-8")).decode("ascii").rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """Return ``(updated_at, id)`` of the conversation a cursor starts after.

    Raises:
        BadRequest: Code ``invalid_cursor`` when ``cursor`` is not one of ours.
    """
    try:
        if not cursor or len(cursor) > MAX_CURSOR_CHARS:
            raise ValueError("empty or too long")
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        if not isinstance(data, dict) or data.get("v") != 1:
            raise ValueError("not a cursor")
        updated, conversation_id = data["u"], data["i"]
        if not isinstance(updated, str) or not isinstance(conversation_id, str):
            raise ValueError("not a cursor")
        at = datetime.fromisoformat(updated)
        if at.tzinfo is None:
            raise ValueError("no time zone")
        at = as_utc(at)  # OverflowError: a zoned time with no UTC form (year 1 or 9999)
        check_storable(conversation_id)  # ValueError: NUL or a lone surrogate
    except _NOT_A_CURSOR:
        raise BadRequest(
            "The cursor is not one this server gave out; list again from the first page "
            "(no cursor).",
            code=INVALID_CURSOR,
        ) from None
    return at, conversation_id


def conversation_page(
    session: Session, owner_id: str, limit: int, cursor: str | None
) -> tuple[Sequence[Conversation], str | None]:
    """Return one page of ``owner_id``'s conversations and the next page's cursor.

    Args:
        session: An open session.
        owner_id: The person whose conversations are listed.
        limit: Conversations per page, 1 to :data:`MAX_LIMIT`.
        cursor: None for the first page, else the cursor a previous page gave.

    Returns:
        ``(conversations newest activity first, cursor of the next page or None)``.

    Raises:
        BadRequest: Code ``invalid_cursor`` (see :func:`decode_cursor`).
    """
    query = select(Conversation).where(Conversation.owner_id == owner_id)
    if cursor is not None:
        updated, conversation_id = decode_cursor(cursor)
        query = query.where(
            tuple_(col(Conversation.updated_at), col(Conversation.id))
            < tuple_(updated, conversation_id)
        )
    rows = session.exec(
        query.order_by(col(Conversation.updated_at).desc(), col(Conversation.id).desc()).limit(
            limit + 1
        )
    ).all()
    if len(rows) > limit:
        return rows[:limit], encode_cursor(rows[limit - 1])
    return rows, None
