"""Reading a slash command off a message: ``/notes buy milk`` is the command ``notes`` with
``buy milk``; a word that only looks like a command is told apart
(:mod:`interlock.engine.commands` resolves and proposes what these read).
"""

from __future__ import annotations

import re
from typing import Any

from interlock.text import plain_form, without_invisible

COMMAND_RE = re.compile(
    r"^/([a-z][a-z0-9_-]{0,31})(?:\s+(.*))?\s*$", re.DOTALL | re.IGNORECASE | re.ASCII
)
"""``/<command> [rest]``; the command word in any case, in ASCII letters only (declared
commands are lowercase; without ``re.ASCII`` the long s (U+017F) and the Kelvin sign would match
``s`` and ``k``)."""
LOOKALIKE_RE = re.compile(r"^/([^\W\d_][\w-]{0,31})(?:\s|$)")
"""A command word in any script, on the text's :func:`~interlock.text.plain_form`: a letter,
then up to 31 letters, digits, ``_`` and ``-`` (the web client's ``messageChecks.ts`` reads
the same)."""
QUERY = "{query}"


def parse_command(content: str) -> tuple[str, str] | None:
    """Return ``(command, rest)`` when ``content`` is ``/<command> [rest]``, else None.

    The command comes back lowercase (``/NOTES x`` → ``("notes", "x")``); ``rest`` as typed.
    """
    match = COMMAND_RE.match(content.strip())
    if match is None:
        return None
    return match.group(1).lower(), (match.group(2) or "").strip()


def lookalike_command(content: str) -> tuple[str, bool] | None:
    """The command word ``content`` seems to start with when it is not one as typed.

    Args:
        content: The message.

    Returns:
        ``(word, invisible)``: the word lowercase as it reads (``/NOTES x`` in fullwidth
        letters gives ``"notes"``, ``/nötes`` gives ``"nötes"``) and whether the first word
        holds an invisible character (``/notes`` then U+202E); None for a command as typed
        (:func:`parse_command`) and for text that does not start with a command word at all.
    """
    if parse_command(content) is not None:
        return None
    match = LOOKALIKE_RE.match(plain_form(content).strip())
    if match is None:
        return None
    first = content.strip().split(maxsplit=1)
    return match.group(1).lower(), bool(first) and without_invisible(first[0]) != first[0]


def fill_args(template: dict[str, Any] | None, query: str) -> dict[str, Any]:
    """Fill ``{query}`` into a command's args template (default ``{"query": "{query}"}``)."""

    def fill(value: Any) -> Any:
        if isinstance(value, str):
            return query if value == QUERY else value.replace(QUERY, query)
        if isinstance(value, list):
            return [fill(v) for v in value]
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        return value

    result = fill(template if template is not None else {"query": QUERY})
    assert isinstance(result, dict)
    return result
