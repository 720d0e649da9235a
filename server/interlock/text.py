"""What text storage accepts: valid Unicode without NUL characters.

A module of its own below :mod:`interlock.storage` and :mod:`interlock.settings` (it imports
only pydantic), so both, and every request body, can use these rules.

PostgreSQL refuses NUL in text and JSON, and a lone UTF-16 surrogate (``"\\ud800"`` in JSON)
cannot be encoded as UTF-8 at all. Input from people is refused at the API with a clear error
(:func:`text_problems`); output from tools and models is repaired (:func:`clean_text`,
:func:`clean_json`) so a run never fails on it.

Text a person types (messages, titles, names, an employee's texts, a decision's reason) also
holds no C0 control character but tab, line feed and carriage return: an Escape or a Bell is
no part of what anyone writes, and would reach terminals and logs
(:func:`control_character_problem`, :func:`no_control_characters`). A tool call's arguments
are held to the same rule whoever wrote them (:func:`control_characters`, used by the tools'
validation): a card would show such a character as nothing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from pydantic import ValidationInfo
from pydantic_core import PydanticCustomError

_BAD = re.compile("[\x00\ud800-\udfff]")
REPLACEMENT = "\ufffd"


def _bad_in(text: str) -> bool:
    if not _BAD.search(text):
        return False
    if "\x00" in text:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


TextPath = tuple[str | int, ...]
"""Where a string sits in a JSON-like value: keys and list indexes, ``"<key>"`` last for a key."""


def _texts(value: Any, path: TextPath = ()) -> Iterator[tuple[TextPath, str]]:
    """Yield ``(path, string)`` for every string in ``value``, dict keys included, in order.

    Args:
        value: A string, or JSON-like dicts, lists and tuples of them; anything else holds none.
        path: The path of ``value`` itself.

    Yields:
        ``((), "hi")`` for ``"hi"``; ``(("a", "<key>"), "a")`` then ``(("a",), "b")`` for
        ``{"a": "b"}``; ``((0,), "x")`` for ``["x"]``.
    """
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                yield (*path, "<key>"), key
            yield from _texts(item, (*path, key))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from _texts(item, (*path, index))


def text_problems(value: Any, path: TextPath = ()) -> list[TextPath]:
    """Return the paths of strings (keys included) in ``value`` that storage cannot hold."""
    return [where for where, text in _texts(value, path) if _bad_in(text)]


def unpaired_surrogates(value: Any) -> list[TextPath]:
    """Return the paths of strings (keys included) in ``value`` holding a lone surrogate.

    Python reads ``"\\ud800"`` in JSON as such a string; it is no character, and UTF-8
    cannot encode it.
    """
    return [where for where, text in _texts(value) if _bad_in(text.replace("\x00", ""))]


def check_storable(value: Any) -> Any:
    """Pydantic validator: refuse NUL characters and lone surrogates anywhere in ``value``.

    Raises:
        ValueError: Naming the first place that breaks the rule.
    """
    problems = text_problems(value)
    if problems:
        where = "/".join(map(str, problems[0]))
        text = f"The text at {where}" if where else "The text"
        raise ValueError(f"{text} contains a NUL character or an unpaired surrogate.")
    return value


_CONTROL = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f]")
"""C0 control characters but tab, line feed and carriage return (and NUL: the storage rule,
:func:`check_storable`, refuses it everywhere)."""
CONTROL_CHARACTER = "control_character"
"""Stable ``rule`` of the field error (``details.errors``) of text holding one."""


def control_character_problem(value: Any, what: str) -> str | None:
    """Return a sentence for a person when a string in ``value`` holds a C0 control character
    other than tab, line feed and carriage return (Escape, Bell...); else None.

    Args:
        value: A string, or JSON-like lists and dicts of them (keys included).
        what: The text's name in the sentence, capitalized: ``"The message"``.

    Returns:
        ``"The message contains a control character (U+001B), which is not text: remove
        it."``, or None.
    """
    for _where, text in _texts(value):
        found = _CONTROL.search(text)
        if found:
            code = f"U+{ord(found.group()):04X}"
            return f"{what} contains a control character ({code}), which is not text: remove it."
    return None


def control_characters(value: Any) -> list[tuple[list[str | int], str]]:
    """Return where ``value`` holds a C0 control character other than tab and line breaks.

    Args:
        value: A string, or JSON-like lists and dicts of them (keys included).

    Returns:
        ``(path, "U+001B")`` per string holding one (the first such character it holds), in
        order; a key's path ends with the key itself. ``[]`` when there is none.
    """
    found: list[tuple[list[str | int], str]] = []
    for where, text in _texts(value):
        hit = _CONTROL.search(text)
        if hit:
            path = [*where[:-1], text] if where and where[-1] == "<key>" else list(where)
            found.append((path, f"U+{ord(hit.group()):04X}"))
    return found


_FIELD_WORDS = {"content": "message"}
"""Fields named otherwise for a person: a message's ``content`` is "the message"."""


def no_control_characters(value: Any, info: ValidationInfo) -> Any:
    """Pydantic field validator (``mode="before"``): refuse a control character in the field
    (:func:`control_character_problem`), named from the field (``system_prompt``: "The system
    prompt"; a message's ``content``: "The message").

    Raises:
        PydanticCustomError: Rule :data:`CONTROL_CHARACTER`, with the sentence.
    """
    name = info.field_name or "text"
    what = "The " + _FIELD_WORDS.get(name, name.replace("_", " "))
    problem = control_character_problem(value, what)
    if problem:
        raise PydanticCustomError(CONTROL_CHARACTER, problem)
    return value


def clean_text(text: str) -> str:
    """Return ``text`` with NUL characters and lone surrogates replaced by U+FFFD."""
    if not _BAD.search(text):
        return text
    text = text.replace("\x00", REPLACEMENT)
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def clean_json(value: Any) -> Any:
    """Apply :func:`clean_text` to every string (keys included) of a JSON value."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, dict):
        return {clean_json(k): clean_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_json(v) for v in value]
    return value


_HIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
"""Bidirectional embeddings, overrides and isolates (LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI,
PDI): characters that reorder the text after them, not marks such as U+200F; and control
characters (C0 but tab, line feed and carriage return; DEL; C1), which show as nothing or
"\ufffd". The web client's ``cards/reveal.ts`` writes the same ones the same way."""


def reveal_hidden(text: str) -> str:
    """Return ``text`` with each bidirectional embedding, override or isolate and each control
    character written as ``[U+202E]``, ``[U+001B]`` instead of obeying it.

    The README's rule for text a tool, a model or a person wrote, wherever a person reads it:
    an override left open in a quoted value (``Add a note: “\u202eevil”``) would otherwise
    reverse the rest of the sentence, and an Escape (``\x1b[31m``) shows as nothing or "�".
    Marks (U+200E, U+200F), joiners, tab, line feed, carriage return and every other
    character are kept.

    Args:
        text: A sentence, a tool's result, a model's reply.

    Returns:
        ``"Add a note: “[U+202E]evil”"``, ``"[U+001B][31mred"``; ``text`` itself when it holds
        none.
    """
    if not _HIDDEN.search(text):
        return text
    return _HIDDEN.sub(lambda m: f"[U+{ord(m.group()):04X}]", text)


_INVISIBLE_ONLY = re.compile(
    "[\\s\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e0fff]*"
)
"""Whitespace and characters that show nothing (zero-width spaces and joiners, bidi marks and
overrides, a BOM, variation selectors, Hangul fillers, tags)."""


def is_blank(text: str) -> bool:
    """True when ``text`` shows nothing: only whitespace and invisible characters.

    Cheap on long text: the match stops at the first visible character.
    """
    return _INVISIBLE_ONLY.fullmatch(text) is not None


_SHOWS_NOTHING = re.compile(
    "[\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0\U000e0100-\U000e01ef]"
)
"""Characters that show nothing but are not format characters (Cf): a combining grapheme
joiner, Hangul fillers, Khmer inherent vowels, variation selectors."""


def without_invisible(text: str) -> str:
    """Return ``text`` without the characters that show nothing: format characters (bidi
    marks and overrides, zero-width spaces and joiners, a soft hyphen, a BOM, tags) and
    :data:`_SHOWS_NOTHING`. Whitespace stays."""
    return "".join(
        c for c in text if unicodedata.category(c) != "Cf" and not _SHOWS_NOTHING.match(c)
    )


def plain_form(text: str) -> str:
    """Return ``text`` as it reads: compatibility forms folded (NFKC: fullwidth letters
    are plain ones, the ligature U+FB01 is ``fi``) and invisible characters dropped (:func:`without_invisible`).

    For deciding what a message is (a slash command or not), never for storing it.
    """
    return without_invisible(unicodedata.normalize("NFKC", without_invisible(text)))


_JOINERS = frozenset("\u200c\u200d")  # zero-width (non-)joiner: part of emoji and scripts
_BLACK_FLAG = "\U0001f3f4"
_TAGS = range(0xE0020, 0xE0080)  # tag characters: a subdivision flag's letters after U+1F3F4


def one_line(text: str, limit: int, *, as_written: bool = False) -> str:
    """Return ``text`` as a one-line label of at most ``limit`` characters (a title).

    Line breaks, tabs and other control characters become spaces; invisible format
    characters (bidi overrides such as U+202E, zero-width spaces, a BOM) are dropped, the
    joiners emoji and scripts need are kept, and so are the tag characters of a subdivision
    flag (U+1F3F4 followed by tags, such as Scotland's); runs of spaces become one. Empty when
    nothing visible is left.

    With ``as_written`` (a conversation's title) format characters are kept: the README's
    rule stores text as it was written and shows a bidi override as ``[U+202E]``
    (:func:`reveal_hidden`, the client's ``reveal``), so nothing a person wrote is silently
    dropped; the result is then empty when it shows nothing (:func:`is_blank`).
    """
    kept: list[str] = []
    for c in text:
        kind = unicodedata.category(c)
        if kind == "Cc" or c.isspace():
            kept.append(" ")
        elif kind[0] != "C" or c in _JOINERS or (as_written and kind == "Cf"):
            kept.append(c)
        elif ord(c) in _TAGS and kept and (kept[-1] == _BLACK_FLAG or ord(kept[-1]) in _TAGS):
            kept.append(c)
    line = " ".join("".join(kept).split())[:limit].strip()
    return "" if as_written and is_blank(line) else line


ONE_LINE_NAME = "one_line_name"
"""Stable ``rule`` of the field error of a name that is not one line of visible characters."""


def name_problem(value: Any, what: str) -> str | None:
    """Return a sentence for a person when ``value`` is not a name people can read as it is:
    one line of visible characters with single spaces between words (what user names must
    be); else None. Surrounding spaces are allowed (they are removed).

    Args:
        value: The name; anything but a string has no problem here (checked elsewhere).
        what: The name's name in the sentence, capitalized: ``"An employee's name"``.

    Returns:
        ``"An employee's name is one line of visible characters, single spaces between words:
        no line breaks, tabs, control or invisible characters."``, or None. A bidi override
        (U+202E), a zero-width space, a tab or two spaces in a row are refused, not dropped:
        the name would not read as what was typed.
    """
    if not isinstance(value, str):
        return None
    text = value.strip()
    return None if one_line(text, len(text)) == text else name_rule(what)


def name_rule(what: str) -> str:
    """The rule of :func:`name_problem` in words, for ``what`` (``"A user name"``)."""
    return (
        f"{what} is one line of visible characters, single spaces between words: no line "
        "breaks, tabs, control or invisible characters."
    )


def one_line_name(what: dict[str, str]) -> Any:
    """A pydantic field validator (``mode="before"``) refusing a name :func:`name_problem`
    finds a problem with.

    Args:
        what: Field name -> its name in the sentence (``{"name": "An employee's name"}``).

    Raises:
        PydanticCustomError: Rule :data:`ONE_LINE_NAME`, with the sentence.
    """

    def check(value: Any, info: ValidationInfo) -> Any:
        field = info.field_name or ""
        problem = name_problem(value, what.get(field, "The " + field.replace("_", " ")))
        if problem:
            raise PydanticCustomError(ONE_LINE_NAME, problem)
        return value

    return check


ELLIPSIS = "\u2026"


def short_label(text: str, limit: int, *, as_written: bool = False) -> str:
    """Return ``text`` as a one-line label (:func:`one_line`) of at most ``limit`` characters,
    cut at a word boundary when one is in the second half, ending with "…" when cut.

    Args:
        text: Any text (a first message).
        limit: Largest length of the result, "…" included (at least 2).
        as_written: Keep format characters (a bidi override), as :func:`one_line` does.

    Returns:
        ``"Plan the offsite for the sales team…"``; empty when nothing visible is left.
    """
    line = one_line(text, len(text), as_written=as_written)
    if len(line) <= limit:
        return line
    cut = line[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2 and not line[limit - 1].isspace():
        cut = cut[:space]
    # No dangling punctuation or half of an emoji's joined sequence before the "…".
    cut = cut.rstrip(" ,.;:!?-\u2013\u2014" + "".join(_JOINERS))
    return (cut or line[: limit - 1]) + ELLIPSIS
