"""Why a piece of JSON could not be read, in words a person understands.

Python's JSON reader fails in four ways: a syntax error (:class:`json.JSONDecodeError`, whose
message is a parser's: "Expecting property name enclosed in double quotes"), bytes that are no
UTF-8 text (:class:`UnicodeDecodeError`), arrays or objects nested too deeply for the reader
(:class:`RecursionError`) and a number with more digits than Python turns into an integer (a
plain :class:`ValueError`). :data:`JSON_ERRORS` catches them all; :func:`json_problem` says
which one happened without the parser's wording.
"""

from __future__ import annotations

import json

JSON_ERRORS: tuple[type[Exception], ...] = (ValueError, RecursionError)
"""Everything reading JSON text can raise on bad input (``JSONDecodeError`` and
``UnicodeDecodeError`` are ``ValueError`` subclasses)."""

_SYNTAX_WORDS: tuple[tuple[str, str], ...] = (
    ("Expecting property name", 'every name must be in double quotes, like "text"'),
    ("Expecting ':' delimiter", "a name is not followed by a colon and its value"),
    ("Expecting ',' delimiter", "a comma is missing between two entries"),
    ("Unterminated string", "a piece of text is missing its closing double quote"),
    (
        "Invalid control character",
        "a piece of text holds a line break or another control character (write it as \\n)",
    ),
    ("Invalid \\uXXXX escape", "a \\u in a piece of text is not followed by four hex digits"),
    ("Invalid \\escape", "a backslash in a piece of text is not followed by a known letter"),
    ("Extra data", "there is more after the first value"),
    (
        "Expecting value",
        "a value is missing or is not written the way JSON needs (text in "
        "double quotes, numbers, true, false or null)",
    ),
)


def json_problem(exc: BaseException) -> str:
    """Say in plain words why reading JSON raised ``exc``.

    Args:
        exc: What ``json.loads`` (or ``raw_decode``) raised: one of :data:`JSON_ERRORS`.

    Returns:
        A lower-case fragment without a full stop, such as ``"a comma is missing between two
        entries"`` or ``"a number in it is too long to read"``.
    """
    if isinstance(exc, RecursionError):
        return "it is nested too deeply (lists or objects inside each other thousands of times)"
    if isinstance(exc, UnicodeDecodeError):
        return "it is not UTF-8 text"
    if isinstance(exc, json.JSONDecodeError):
        if exc.pos >= len(exc.doc.rstrip()) and not exc.msg.startswith("Extra data"):
            return "it stops too early (a closing brace, bracket or quote is missing)"
        for start, words in _SYNTAX_WORDS:
            if exc.msg.startswith(start):
                return words
        return "it is not written the way JSON needs"
    if "digits" in str(exc):  # int(): "Exceeds the limit (4300 digits) for integer ..."
        return "a number in it is too long to read (it has thousands of digits)"
    return "it is not written the way JSON needs"
