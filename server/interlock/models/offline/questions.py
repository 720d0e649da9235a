"""How the offline model words the questions it asks on a card.

What a person writes after "ask me to confirm" is a fragment in their own voice ("the booking
for Friday", "that I want the blue one", "book the 9:15 train", "is Friday ok?"). The card
shows the question as the employee asks it, so it must be a sentence in the employee's voice:
"Do you confirm the booking for Friday?", "Do you confirm that you want the blue one?",
"Should I book the 9:15 train?", "Is Friday ok?". :func:`confirm_question` does that and
:func:`confirmed_what` reads the question back for the reply once the person answered yes.
Pure functions of their input.
"""

from __future__ import annotations

import re

_SWAP = {
    "i": "you",
    "me": "you",
    "my": "your",
    "mine": "yours",
    "myself": "yourself",
    "i'm": "you're",
    "i'll": "you'll",
    "i've": "you've",
    "i'd": "you'd",
    "i am": "you are",
    "i was": "you were",
    "your": "my",
    "yours": "mine",
    "yourself": "myself",
    "you're": "I'm",
    "you'll": "I'll",
    "you've": "I've",
    "you'd": "I'd",
    "you are": "I am",
    "you were": "I was",
}
"""The person's words for themselves and for the employee, as the employee says them."""
_SWAP_RE = re.compile(
    r"\b(?:i am|i was|you are|you were|i'm|i'll|i've|i'd|you're|you'll|you've|you'd"
    r"|myself|yourself|mine|yours|my|your|me|i|you)\b",
    re.IGNORECASE,
)
_SUBJECT_BEFORE = re.compile(r"(?:^|\b(?:that|and|or|if|whether|so|but|when))\s*$", re.IGNORECASE)
"""``you`` right after these (or first) is a subject: the employee's ``I``, else ``me``."""

_ASKING = frozenset(
    "is are am was were do does did can could should shall will would may might must have has "
    "had what which who whom whose when where why how".split()
)
"""First words of a sentence that is already a question."""
_CLAUSE = frozenset("i you we they he she it there this that these those".split())
"""Subjects: a fragment starting with one and going on is a clause ("we ship today")."""
_NOUN_START = frozenset(
    "the a an my your our their his her its this that these those all some any each every no "
    "both one two three four five six seven eight nine ten".split()
)
_VERBS = frozenset(
    "accept add approve archive book buy call cancel change charge clear close create delete "
    "deploy draft email finish forward go hire install invite keep launch merge move open order "
    "pay post print proceed publish refund release remove rename renew reply reschedule reserve "
    "reset restart run save schedule send set share ship sign start stop submit transfer turn "
    "update upgrade use write".split()
)
"""Verbs an imperative fragment starts with ("book the 9:15 train" → "Should I book ...?")."""


def from_their_side(text: str) -> str:
    """Turn the person's "I"/"my" into "you"/"your" and their "you" into the employee's
    "I"/"me", as the employee says it back."""

    def swap(found: re.Match[str]) -> str:
        word = found.group(0)
        key = " ".join(word.lower().split())
        if key == "you":
            subject = _SUBJECT_BEFORE.search(text[: found.start()]) is not None
            return "I" if subject else "me"
        return _SWAP[key]

    return _SWAP_RE.sub(swap, text)


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def confirm_question(fragment: str) -> str:
    """The yes/no question a card asks to confirm ``fragment`` (the person's words after
    "ask me to confirm"); "" when there is nothing to confirm.

    Examples: "the booking for Friday" → "Do you confirm the booking for Friday?";
    "that I want the blue one" → "Do you confirm that you want the blue one?"; "book the
    9:15 train" → "Should I book the 9:15 train?"; "is Friday ok?" → "Is Friday ok?".
    """
    text = " ".join(fragment.split()).strip(" .!?:;,")
    that = re.match(r"(?:that|whether|if)\s+", text, re.IGNORECASE)
    if that:
        text = text[that.end() :]
    if not text:
        return ""
    said = from_their_side(text)
    words = said.split()
    first = words[0].lower().strip("\"'“")
    if that or (first in _CLAUSE and len(words) > 1 and first not in _NOUN_START):
        return f"Do you confirm that {said}?"
    if first in _ASKING:
        return f"{_capital(said)}?"
    following = words[1].lower() if len(words) > 1 else ""
    if first in _VERBS and following not in ("of", "for", "from"):
        return f"Should I {first} {' '.join(words[1:])}".rstrip() + "?"
    return f"Do you confirm {said}?"


def choice_question(verb: str, *, many: bool) -> str:
    """The question of a choice card from the person's verb ("ask me which of tea or coffee I
    prefer" → "Which one do you prefer?"); ``many``: several may be chosen."""
    verb = " ".join(verb.lower().split())
    which = "Which ones" if many else "Which one"
    if verb.startswith("would"):
        return f"{which} would you like?"
    return f"{which} do you {verb}?"


_CONFIRMED = (
    (re.compile(r"^Do you confirm (?:that )?(?P<what>.+)\?$", re.DOTALL), "{what}"),
    (re.compile(r"^Should I (?P<what>.+)\?$", re.DOTALL), "I will {what}"),
)


def confirmed_what(question: str) -> str:
    """What a yes to :func:`confirm_question`'s question confirmed ("the booking for
    Friday", "I will book the 9:15 train"); for any other question, that the person said yes
    to it."""
    question = question.strip()
    for pattern, shape in _CONFIRMED:
        found = pattern.match(question)
        if found:
            return shape.format(what=found.group("what"))
    return f"you said yes to “{question}”" if question.endswith("?") else question
