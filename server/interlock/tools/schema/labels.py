"""A field's label for people: the schema's ``title``, else its key in words.

The web client labels fields the same way (``client-web/src/cards/fields/schemaFields.ts``
``humanise``): ``due_date`` is "Due date", ``noteId`` "Note ID", ``id`` "ID".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["field_label", "humanise"]

_ACRONYMS = {
    word + plural: word.upper() + plural
    for word in ("id", "url", "uri", "api", "ip", "uuid", "html", "json", "http", "sku", "vat")
    for plural in ("", "s")
}
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")
_SEPARATORS = re.compile(r"[_\-.\s]+")


def humanise(key: str) -> str:
    """Return ``key`` in words: ``"due_date"`` → ``"Due date"``, ``"api_url"`` → ``"API URL"``."""
    words = [w for w in _SEPARATORS.split(_CAMEL.sub(r"\1 \2", key).lower()) if w]
    if not words:
        return key
    line = " ".join(_ACRONYMS.get(w, w) for w in words)
    return line[0].upper() + line[1:]


def field_label(schema: Any, path: Sequence[str | int]) -> str:
    """Return the label of the field at ``path`` (keys and list indexes) in ``schema``.

    The ``title`` of that field's schema when it has one, else its last key humanised; an
    empty string for the whole object (no key in ``path``).
    """
    node = schema
    for part in path:
        if isinstance(part, int):
            node = node.get("items") if isinstance(node, dict) else None
            continue
        props = node.get("properties") if isinstance(node, dict) else None
        node = props.get(part) if isinstance(props, dict) else None
    names = [part for part in path if not isinstance(part, int)]
    if not names:
        return ""
    title = node.get("title") if isinstance(node, dict) else None
    return title.strip() if isinstance(title, str) and title.strip() else humanise(names[-1])
