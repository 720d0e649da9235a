"""Understanding the person's message: which notes, suggestion or skill request it is.

:func:`parse_request` reads the latest human message into one or more :class:`Intent` objects
(several for compound note commands such as "add a note X and delete note 2"). Skill requests
("ask me to choose ...", "use <tool> with {json}") are read by
:mod:`interlock.models.offline.skill_requests`; this module decides the order they are tried in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from interlock.models.offline.skill_requests import (
    BadArguments,
    FixedReply,
    SkillRequest,
    ToolRequest,
    match_skill_request,
    parse_tool_command,
)
from interlock.models.offline.wording import clean_text

IntentKind = Literal[
    "suggest", "add", "delete_id", "delete_text", "list", "long", "help", "ask", "tool", "say"
]
_NOTE_KINDS = frozenset({"add", "delete_id", "delete_text", "list", "ask"})


@dataclass(frozen=True)
class Intent:
    """One thing the person asked for.

    Attributes:
        kind: What was asked.
        text: Note text, the request (``suggest``) or the reply (``say``).
        note_id: The note number (``delete_id``).
        request: The call (``tool``: ask skill requests and "use <tool> with {json}").
        bad: Arguments of "use <tool> with {json}" that could not be read (``say``).
    """

    kind: IntentKind
    text: str = ""
    note_id: int = 0
    request: ToolRequest | None = None
    bad: BadArguments | None = None


def _skill_intent(request: SkillRequest) -> Intent:
    if isinstance(request, FixedReply):
        return Intent("say", text=request.text)
    if isinstance(request, BadArguments):
        return Intent("say", text=request.text(), bad=request)
    return Intent("tool", request=request)


_FLAGS = re.IGNORECASE | re.DOTALL
_POLITE_RE = re.compile(
    r"^(?:(?:please|hey|hi|ok(?:ay)?|so|now|and|can you|could you|would you|will you|"
    r"i want you to|i'd like you to)\b[\s,!:]*)+",
    re.IGNORECASE,
)
_LONG_RE = re.compile(
    r"\blong\s+(?:answer|story|text|reply|response|essay)\b|\bwrite\s+(?:me\s+)?(?:a\s+)?long\b",
    _FLAGS,
)
_DELETE_ID_RE = re.compile(
    r"\b(?:delete|remove)\s+(?:the\s+|my\s+)?note\s*(?:number\s*|no\.?\s*)?#?(\d{1,18})"
    r"(?:\s*(?:please)?)?\s*[.!?]*\s*$",
    _FLAGS,
)
_DELETE_TEXT_RE = re.compile(
    r"\b(?:delete|remove)\s+(?:the\s+|my\s+)?note\b\s*(?:about|called|saying|that says|with|:)?"
    r"\s*(.*)$",
    _FLAGS,
)
_ADD_RE = re.compile(
    r"\badd\s+(?:a\s+|an\s+|another\s+|the\s+|new\s+|one more\s+)?note\b[\s:,-]*"
    r"(?:saying|that says|to say|with the text|with|:)?\s*(.*)$",
    _FLAGS,
)
_NOTE_COLON_RE = re.compile(r"\bnote\s*:\s*(.*)$", _FLAGS)
_REMEMBER_RE = re.compile(r"\bremember\b(?:\s+that)?\s*(.*)$", _FLAGS)
_LIST_RE = re.compile(
    r"\b(?:what|which|list|show|see|view)\b(?:\s+(?:me|my|all|the|of|are|do|did|i|have|"
    r"current|saved))*\s+notes?\b",
    _FLAGS,
)
_SUGGEST_RE = re.compile(
    r"\b(?:ideas?|suggest\w*|names|a\s+name|name\s+for|options|help\s+me\s+(?:choose|pick|decide)|"
    r"pick|choose|recommend\w*)\b",
    _FLAGS,
)
_COMPOUND_SPLIT_RE = re.compile(
    r"\s*(?:,\s*)?\b(?:and(?:\s+then)?|then)\b\s+(?=(?:please\s+)?(?:add|delete|remove|remember|"
    r"list|show)\b)|\s*[;,]\s*(?=(?:please\s+)?(?:add|delete|remove|remember)\b)",
    re.IGNORECASE,
)


def _parse_command(text: str, *, anchored: bool) -> Intent | None:
    def hit(pattern: re.Pattern[str]) -> re.Match[str] | None:
        found = pattern.search(text)
        if found is None or (anchored and found.start() != 0):
            return None
        return found

    if (request := match_skill_request(text, anchored=anchored)) is not None:
        return _skill_intent(request)
    if hit(_LONG_RE):
        return Intent("long")
    if found := hit(_DELETE_ID_RE):
        return Intent("delete_id", note_id=int(found.group(1)))
    if found := hit(_DELETE_TEXT_RE):
        target = clean_text(found.group(1))
        return Intent("delete_text", text=target) if target else Intent("ask", "delete")
    if found := hit(_ADD_RE) or hit(_NOTE_COLON_RE) or hit(_REMEMBER_RE):
        note = clean_text(found.group(1))
        return Intent("add", text=note) if note else Intent("ask", "add")
    if hit(_LIST_RE):
        return Intent("list")
    if (request := match_skill_request(text, anchored=anchored, weak=True)) is not None:
        return _skill_intent(request)
    if not anchored and _SUGGEST_RE.search(text):
        return Intent("suggest", text=text.strip())
    return None


def parse_request(text: str) -> list[Intent]:
    """Read a person's message into one or more intents (several for compound note commands).

    Args:
        text: The latest human message.

    Returns:
        Intents in the order they were asked; ``[help]`` when nothing is recognised.
    """
    stripped = _POLITE_RE.sub("", text.strip())
    if (request := parse_tool_command(stripped)) is not None:
        return [_skill_intent(request)]
    parts = [p for p in _COMPOUND_SPLIT_RE.split(stripped) if p.strip()]
    if len(parts) > 1:
        intents = [_parse_command(_POLITE_RE.sub("", p.strip()), anchored=True) for p in parts]
        if all(i is not None and i.kind in _NOTE_KINDS for i in intents):
            return [i for i in intents if i is not None]
    for anchored in (True, False):
        intent = _parse_command(stripped, anchored=anchored)
        if intent is not None:
            return [intent]
    return [Intent("help")]
