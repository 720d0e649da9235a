"""Skill requests: the ``ask`` skill's phrases and the generic "use <tool> with {json}" rule.

:func:`match_skill_request` reads "ask me to choose between A, B and C", "ask me for my
details", "ask me to confirm X" (and the bare word "form"); :func:`parse_tool_command` reads
"use <tool.name> with {json}". Each gives a :class:`ToolRequest` to call or a
:class:`FixedReply` to say instead. Everything here is a pure function of its inputs.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from interlock.json_words import JSON_ERRORS, json_problem
from interlock.models.offline.questions import choice_question, confirm_question
from interlock.models.offline.tool_names import (
    ASK_CHOICE,
    ASK_CONFIRM,
    ASK_FORM,
    BROWSER_TIME_ZONE,
    DOCUMENTS_LIST,
    DOCUMENTS_WRITE,
)
from interlock.models.offline.wording import clean_text
from interlock.tools import provider_safe_name

MAX_CHOICE_OPTIONS = 10

FORM_TITLE = "Your details"
FORM_FIELDS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name"},
        "email": {"type": "string", "format": "email", "title": "Email"},
        "age": {"type": "integer", "title": "Age", "minimum": 0},
        "newsletter": {"type": "boolean", "title": "Newsletter"},
        "plan": {"type": "string", "enum": ["free", "pro"], "title": "Plan"},
    },
    "required": ["name", "email"],
}
"""The deterministic flat form the offline model asks with ``ask_form``."""

_FLAGS = re.IGNORECASE | re.DOTALL


@dataclass(frozen=True)
class ToolRequest:
    """A tool call the person asked for.

    Attributes:
        lead: Text said before the call.
        name: Provider-safe tool name (``ask_form``).
        args: The call's arguments.
        skill: The skill that provides the tool, when known from the request (``use
            weather.alert ...`` → ``weather``); None looks it up (:func:`skill_of`).
        dotted: The tool's name as the person wrote it (``web_search.fetch``), when they did.
    """

    lead: str
    name: str
    args: dict[str, Any]
    skill: str | None = None
    dotted: str | None = None


@dataclass(frozen=True)
class FixedReply:
    """A request understood well enough to answer with text only (a question back, a problem)."""

    text: str


@dataclass(frozen=True)
class BadArguments:
    """A "use <tool> with {json}" request whose arguments could not be read.

    Attributes:
        name: Provider-safe tool name (``notes_add``).
        dotted: The tool's name as the person wrote it (``notes.add``).
        problem: What is wrong, in plain words (a fragment: "a comma is missing ...").
    """

    name: str
    dotted: str
    problem: str

    def text(self, spoken: str | None = None) -> str:
        """The reply, the tool named ``spoken`` (its title in quotes) or as the person wrote it.

        Returns:
            ``I couldn't read the details for “Add a note”: <problem>, so I did not use it. ...``
        """
        tool = spoken or f"`{self.dotted}`"
        return (
            f"I couldn't read the details for {tool}: {self.problem}, so I did not use it. "
            f"Write them as names and values in braces, for example: use {self.dotted} with "
            '{"name": "value"}'
        )


SkillRequest = ToolRequest | FixedReply | BadArguments


_TOOL_COMMAND_RE = re.compile(
    r"^(?:use|call|run)\s+(?:the\s+)?[`'\"]?(?P<name>[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)[`'\"]?"
    r"(?:\s+tool)?(?:\s+(?:with|using)\b)?(?:\s+(?:the\s+)?(?:args|arguments|input)\b)?"
    r"\s*:?\s*(?:(?P<json>[{\[].*?)|[.!]?)\s*$",
    _FLAGS,
)
_ASK_CHOICE_RE = re.compile(r"\bask\s+me\s+(?:to\s+(?:choose|pick|select)|which)\b\s*(.*)$", _FLAGS)
_CHOICE_LEAD_RE = re.compile(
    r"^(?:(?P<many>one\s+or\s+more|ones|several|any|multiple|some|all)\b|one\b)?\s*"
    r"(?:(?:of|between|among|from)\b(?:\s*(?:these|the\s+following|them)\b)?|:)\s*:?\s*"
    r"(?P<items>.*)$",
    _FLAGS,
)
_CHOICE_SPLIT_RE = re.compile(r"\s*,\s*(?:or\s+|and\s+)?|\s+or\s+|\s+and\s+", re.IGNORECASE)
_CHOICE_TAIL_RE = re.compile(
    r"\s+(?:i|you)\s+(?P<verb>prefer|like|want|would\s+like|choose|pick)\b.*$", _FLAGS
)
_ASK_CONFIRM_RE = re.compile(r"\bask\s+me\s+to\s+confirm\b\s*:?\s*(?:that\s+)?(.*)$", _FLAGS)
_CONFIRM_RE = re.compile(r"^confirm\b\s*:?\s*(?:that\s+)?(.*)$", _FLAGS)
_ASK_FORM_RE = re.compile(
    r"\bask\s+me\s+(?:for\s+(?:my|some|a\s+few|your)\s+(?:contact\s+|personal\s+)?"
    r"(?:details|info(?:rmation)?)|(?:a\s+few|a\s+couple\s+of|some|several|few)\s+questions)\b"
    r"|\bsign\s+me\s+up\b",
    _FLAGS,
)
_FORM_RE = re.compile(r"\bform\b", _FLAGS)
_TIME_ZONE_RE = re.compile(
    r"\b(?:what(?:'s|\s+is)\s+my|which|tell\s+me\s+my|check\s+my)\s+time\s*-?\s*zone\b", _FLAGS
)
_LIST_DOCUMENTS_RE = re.compile(
    r"\b(?:(?:list|show)\s+(?:me\s+)?my\s+documents|what\s+documents\s+do\s+i\s+have)\b", _FLAGS
)
_WRITE_DOCUMENT_RE = re.compile(
    r"\b(?:write|draft|create|start)\s+(?:me\s+)?(?:a\s+)?(?:new\s+)?(?:document|doc)\s+"
    r"(?:titled|called|named)\s+(?P<title>.+?)\s*$",
    _FLAGS,
)


def parse_tool_command(text: str) -> SkillRequest | None:
    """Read the generic rule ``use <tool.name> with {json}`` / ``call <tool.name> {json}``.

    The tool name is given in dotted form and mapped to the provider form (characters outside
    ``[a-zA-Z0-9_]``, dots and dashes too, become ``_``). Without JSON the name must contain a dot (``call
    notes.list``), so "call Sam" is not a tool call.

    Args:
        text: The request, polite words already removed.

    Returns:
        The call, a reply explaining bad arguments, or None when the rule does not apply.
    """
    found = _TOOL_COMMAND_RE.match(text.strip())
    if found is None:
        return None
    dotted, raw = found.group("name"), found.group("json")
    if raw is None and "." not in dotted:
        return None
    args: Any = {}
    name = provider_safe_name(dotted)
    if raw is not None:
        try:
            args, end = json.JSONDecoder().raw_decode(raw)
        except JSON_ERRORS as exc:
            return BadArguments(name, dotted, json_problem(exc))
        rest = raw[end:].strip(" \t\n.!")
        if rest.casefold() not in ("", "please"):
            shown = rest if len(rest) <= 40 else rest[:40] + "…"
            return BadArguments(name, dotted, f"there is more text after them (“{shown}”)")
    if not isinstance(args, dict):
        return BadArguments(
            name, dotted, "they must be names and values in braces, not a list or a single value"
        )
    return ToolRequest(
        lead=f"I'll use `{dotted}`.",
        name=name,
        args=args,
        skill=dotted.split(".", 1)[0],
        dotted=dotted,
    )


def _choice_request(rest: str) -> SkillRequest:
    many = False
    items = rest
    lead = _CHOICE_LEAD_RE.match(rest.strip())
    if lead is not None:
        many = lead.group("many") is not None
        items = lead.group("items")
    tail = _CHOICE_TAIL_RE.search(items.strip())
    items = _CHOICE_TAIL_RE.sub("", items.strip()).strip(" ?!")
    options: list[str] = []
    for piece in _CHOICE_SPLIT_RE.split(items):
        option = clean_text(piece).strip(" ?!")
        if option and option not in options:
            options.append(option)
    if len(options) < 2:
        return FixedReply(
            "Which options should I offer? For example: “ask me to choose between tea, coffee "
            "and juice”."
        )
    question = choice_question(tail.group("verb") if tail else "choose", many=many)
    return ToolRequest(
        lead="Let me ask you.",
        name=ASK_CHOICE,
        args={"question": question, "options": options[:MAX_CHOICE_OPTIONS], "multiple": many},
    )


def _confirm_request(fragment: str) -> SkillRequest:
    summary = confirm_question(clean_text(fragment.strip()))
    if not summary:
        return FixedReply(
            "What should I ask you to confirm? For example: “ask me to confirm the order of two "
            "pizzas”."
        )
    return ToolRequest(
        lead="Let me check with you first.", name=ASK_CONFIRM, args={"summary": summary}
    )


def form_request() -> ToolRequest:
    """Return the ``ask_form`` call with the deterministic form (:data:`FORM_FIELDS`)."""
    return ToolRequest(
        lead="I'll ask you for a few details.",
        name=ASK_FORM,
        args={"title": FORM_TITLE, "fields": json.loads(json.dumps(FORM_FIELDS))},
    )


def _document_request(title: str) -> SkillRequest:
    title = clean_text(title).strip(" \"'“”\u2018\u2019.!?")[:200].strip()
    if not title:
        return FixedReply(
            "What should the document be called? For example: “write a document titled Trip plan”."
        )
    markdown = f"# {title}\n\n* First point\n* Second point\n"
    return ToolRequest(
        lead=f"Here is a first draft of “{title}” for you to review.",
        name=DOCUMENTS_WRITE,
        args={"title": title, "markdown": markdown},
        skill="documents",
    )


def match_skill_request(text: str, *, anchored: bool, weak: bool = False) -> SkillRequest | None:
    """Read an ``ask`` skill request.

    Strong phrases ("ask me to choose between ...", "ask me which of ...", "ask me to confirm
    ...", "confirm ...", "ask me for my details", "ask me a few questions", "sign me up") are
    read before note commands; the weak one (the bare word "form") only after them. The
    browser and documents skills' phrases ("what is my time zone", "list my documents",
    "write a document titled X") are strong ones too.

    Args:
        text: The request, polite words already removed.
        anchored: Only accept a phrase at the very start of ``text``.
        weak: Read the weak phrase instead of the strong ones.

    Returns:
        The request, or None.
    """

    def hit(pattern: re.Pattern[str]) -> re.Match[str] | None:
        found = pattern.search(text)
        if found is None or (anchored and found.start() != 0):
            return None
        return found

    if weak:
        return form_request() if hit(_FORM_RE) else None
    if found := hit(_ASK_CONFIRM_RE) or hit(_CONFIRM_RE):
        return _confirm_request(found.group(1))
    if found := hit(_ASK_CHOICE_RE):
        return _choice_request(found.group(1))
    if hit(_ASK_FORM_RE):
        return form_request()
    if hit(_TIME_ZONE_RE):
        return ToolRequest(
            lead="Let me ask your browser.", name=BROWSER_TIME_ZONE, args={}, skill="browser"
        )
    if hit(_LIST_DOCUMENTS_RE):
        return ToolRequest(
            lead="Here are your documents.", name=DOCUMENTS_LIST, args={}, skill="documents"
        )
    if found := hit(_WRITE_DOCUMENT_RE):
        return _document_request(found.group("title"))
    return None
