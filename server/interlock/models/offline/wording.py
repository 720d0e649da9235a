"""Tidying text the offline model quotes: quotes and full stops in, sentence endings out.

:func:`clean_text` is applied to what the person wrote (a note, an option, a summary) and
:func:`with_stop` to sentences the model says back, so both read naturally.
"""

from __future__ import annotations

import re

_FOR_THE_MODEL = re.compile(r"\s*(?:\bDo not\b|;\s*do not\b|;\s*tell them\b)[^.]*(?:\.|$)")
"""A sentence or clause of a tool message that instructs the model ("Do not retry it unless
the person asks for it again.", "; tell them what you would need instead")."""


def clean_text(text: str) -> str:
    """Strip surrounding whitespace and quotes and one trailing full stop."""
    text = text.strip()
    quotes = {'"': '"', "'": "'", "“": "”", "‘": "’", "«": "»"}  # noqa: RUF001
    if len(text) >= 2 and text[0] in quotes and text[-1] == quotes[text[0]]:
        text = text[1:-1].strip()
    if text.endswith(".") and not text.endswith(".."):
        text = text[:-1].rstrip()
    return text


def with_stop(text: str) -> str:
    """End ``text`` with a full stop unless it is empty or already ends in ``.``, ``!`` or ``?``."""
    text = text.strip()
    return text if not text or text[-1] in ".!?" else text + "."


def for_person(text: str) -> str:
    """Drop what a tool message tells the model, keeping what happened, and address the
    person as "you", before the offline model says it back to the person (who is not to be
    told "Do not retry it unless the person asks for it again." or "the person sent a new
    message")."""
    text = _FOR_THE_MODEL.sub("", text).strip()
    text = re.sub(r"\bthe person's\b", "your", text)
    return re.sub(r"\bthe person\b", "you", text)
