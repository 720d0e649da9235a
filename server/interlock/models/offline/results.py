"""Answering after tool results: choices, note changes, rejections, errors, cancellations.

:func:`describe_result` turns one tool message into what the offline model says about it;
results of the ``ask`` skill and unknown tools are answered by
:mod:`interlock.models.offline.skill_answers`. :func:`parse_note_lines` reads a notes listing
and :func:`note_to_delete` finds the note that "delete note buy milk" means in it.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import ToolMessage

from interlock.models.offline.skill_answers import action_for, describe_answer, summarise_result
from interlock.models.offline.tool_names import (
    NOTES_ADD,
    NOTES_DELETE,
    NOTES_LIST,
    SUGGESTIONS,
    spoken_name,
)
from interlock.models.offline.wording import clean_text, for_person, with_stop
from interlock.text import reveal_hidden
from interlock.tools.base import DETAIL_MARK

_CHOSE_RE = re.compile(r"^\s*The person chose:\s*(.+)", re.IGNORECASE)
_REJECTED_RE = re.compile(
    r"^\s*Rejected by the person:\s*(.*?)(?:\.\s*They declined this call.*)?$", re.DOTALL
)
_ERROR_RE = re.compile(r"^\s*Error \[([A-Za-z0-9_.-]+)\]:\s*(.*)$", re.DOTALL)
_CANCELLED_RE = re.compile(r"^\s*Cancelled:\s*(.*?)\.?\s*$", re.DOTALL)
ANSWERED_INSTEAD = "Not run: the person answered instead of running"
"""How the tool message starts when the person answered a call of a tool that asks nothing
(``interlock.engine.tool_texts.answer_text``): the tool did not run."""
_ANSWERED_RE = re.compile(r"^\s*" + re.escape(ANSWERED_INSTEAD) + r" “[^”]*”:\s*(.*)$", re.DOTALL)
_NOTE_DONE_RE = re.compile(r"^(Added|Deleted) note #(\d+):\s*(.*?)\s*$", re.DOTALL)
_NOTE_LINE_RE = re.compile(r"#(\d{1,18})(?!\d)\s*[:.)\-]?\s*(.+?)\s*$")
_LABEL_RE = re.compile(r"^\s*Not [a-z ]{1,40}:\s+(?=\S)")
"""The label an engine text starts with ("Not approved in time: ", "Not asked again: "): the
sentence after it says what happened."""


def parse_note_lines(text: str) -> list[tuple[int, str]]:
    """Parse a notes listing (lines like ``#3: buy milk``) into ``(id, text)`` pairs.

    Args:
        text: The ``notes_list`` tool result.

    Returns:
        The notes in listing order.
    """
    notes: list[tuple[int, str]] = []
    for line in text.splitlines():
        found = _NOTE_LINE_RE.search(line)
        if found:
            notes.append((int(found.group(1)), found.group(2)))
    return notes


def note_to_delete(target: str, listing: str) -> tuple[int, str] | str:
    """The note "delete note <target>" means, found in a notes listing.

    A note whose text is ``target`` (regardless of case and spacing) wins, else one holding
    it.

    Args:
        target: The text the person named.
        listing: The notes listing (a ``notes_list`` result).

    Returns:
        ``(note id, its text)`` for the one note meant, else what to say: that none matched,
        or the matches and a question which one.
    """
    notes = parse_note_lines(listing)
    wanted = normalise(target)
    exact = [(i, t) for i, t in notes if normalise(t) == wanted]
    partial = [(i, t) for i, t in notes if wanted and wanted in normalise(t)]
    matches = exact or partial
    if not matches:
        return f"No note matched “{target}”, so I did not delete anything."
    if len(matches) > 1:
        listed = "\n".join(f"- #{i}: {t}" for i, t in matches)
        return (
            f"Several notes match “{target}”:\n\n{listed}\n\nWhich one should I delete? "
            "Tell me its number, for example “delete note "
            f"{matches[0][0]}”."
        )
    return matches[0]


def normalise(text: str) -> str:
    """Return note text cleaned, case-folded and with single spaces, for matching."""
    return " ".join(clean_text(text).casefold().split())


def _action(name: str, args: dict[str, Any], spoken: str) -> str:
    if name == NOTES_DELETE:
        return "delete the note"
    if name == NOTES_ADD:
        return "add the note"
    if name == NOTES_LIST:
        return "list your notes"
    if name == SUGGESTIONS:
        return "go ahead with those suggestions"
    return action_for(name, args) or f"run {spoken}"


def _failed(action: str, reason: str) -> str:
    """``Sorry — I could not add the note. Nobody decided within 2 seconds, so the call did
    not run.``: what failed and why, as two sentences (never ``…note: Not approved in time:
    nobody…``), the engine text's label dropped and the reason's first letter capitalised."""
    said = with_stop(_LABEL_RE.sub("", reason, count=1).strip())
    if not said:
        return f"Sorry — I could not {action}."
    return f"Sorry — I could not {action}. {said[0].upper()}{said[1:]}"


def _describe_rejection(name: str, args: dict[str, Any], content: str, spoken: str) -> str:
    found = _REJECTED_RE.match(content)
    reason = found.group(1).strip() if found else content.strip()
    text = f"Understood — I did not {_action(name, args, spoken)}."
    if reason and reason.casefold() != "no reason given":
        text += f" You said: {with_stop(reason)}"
    else:
        text += " You did not give a reason."
    return text + " Nothing was done."


def _describe_error(name: str, args: dict[str, Any], content: str, spoken: str) -> str:
    found = _ERROR_RE.match(content)
    if not found:
        return _failed(_action(name, args, spoken), content)
    # The error code (group 1) is for programs, the detail for the admin ("GET https://…
    # answered HTTP 401") and the hint for the model ("Call notes.list to see the ids of the
    # person's notes."); the person reads the message, as on the card.
    message = found.group(2).strip().partition(" Hint: ")[0].partition(DETAIL_MARK)[0]
    return _failed(_action(name, args, spoken), message)


def _describe_success(name: str, args: dict[str, Any], content: str, spoken: str) -> str:
    content = content.strip()
    if name == SUGGESTIONS:
        found = _CHOSE_RE.match(content)
        if found:
            choice = found.group(1).splitlines()[0].strip()
            if choice.endswith(".") and not choice.endswith(".."):
                choice = choice[:-1]
            return f"Great choice: **{choice}**. Let me know if you would like more ideas."
        return f"Thanks — you answered: {with_stop(content)}" if content else "Thanks!"
    if name in (NOTES_ADD, NOTES_DELETE):
        verb = "added" if name == NOTES_ADD else "deleted"
        found = _NOTE_DONE_RE.match(content)
        if found:
            return f"Done — I {verb} note #{found.group(2)}: “{found.group(3)}”."
        note = args.get("text") if name == NOTES_ADD else args.get("id")
        if note is None:
            text = "Done."
        elif name == NOTES_ADD:
            text = f"Done — I added the note “{note}”."
        else:
            text = f"Done — I deleted note #{note}."
        return f"{text}\n\n{content}" if content else text
    if name == NOTES_LIST:
        if not content or not parse_note_lines(content):
            return content or "You do not have any notes yet."
        # One Markdown list item per note: the reply is Markdown, where the listing's single
        # line breaks would run the notes together on one line.
        listed = "\n".join(f"- #{note_id}: {text}" for note_id, text in parse_note_lines(content))
        return f"Here are your notes:\n\n{listed}"
    answer = describe_answer(name, args, content)
    return answer if answer is not None else summarise_result(spoken, content)


def describe_result(
    name: str, args: dict[str, Any], message: ToolMessage, spoken: str | None = None
) -> str:
    """Say what happened to one call, from its tool message (see the module docstring).

    ``name`` is the provider-safe name the model called; ``spoken`` names the tool for the
    person (its title in quotes, see :func:`~.tool_names.spoken_name`; by default the
    built-in dotted name). What it quotes of the tool's text reads as a card shows it: a
    bidirectional control or a control character as ``[U+202E]``, ``[U+001B]``
    (:func:`interlock.text.reveal_hidden`).
    """
    return reveal_hidden(_describe(name, args, message, spoken))


def _describe(name: str, args: dict[str, Any], message: ToolMessage, spoken: str | None) -> str:
    spoken = spoken or spoken_name(name)
    content = message.text
    if content.lstrip().startswith("Rejected by the person:"):
        return _describe_rejection(name, args, content, spoken)
    if content.lstrip().startswith("Error ["):
        return _describe_error(name, args, for_person(content), spoken)
    answered = _ANSWERED_RE.match(content)
    if answered:
        said = answered.group(1).strip()
        text = f"Understood — I did not {_action(name, args, spoken)}."
        return f"{text} You answered: {with_stop(said)}" if said else f"{text} Nothing was done."
    if content.lstrip().startswith("Cancelled:"):
        return _cancelled(f"The request to {_action(name, args, spoken)} was", _reason(content))
    if message.status == "error":
        return _failed(_action(name, args, spoken), for_person(content))
    return _describe_success(name, args, content, spoken)


CancelKey = tuple[str, str]
"""What a cancelled call's sentence says: ``(action, reason)`` (see :func:`cancelled_key`)."""


def _reason(content: str) -> str:
    """The person's words for why a call was cancelled (its ``Cancelled: ...`` message)."""
    found = _CANCELLED_RE.match(content)
    return for_person(found.group(1)) if found else ""


def _cancelled(subject: str, reason: str) -> str:
    why = f" ({reason})" if reason else ""
    return f"{subject} cancelled{why}. Nothing was done."


def cancelled_key(
    name: str, args: dict[str, Any], message: ToolMessage, spoken: str | None = None
) -> CancelKey | None:
    """``(action, reason)`` of a cancelled call, said of any request of its kind ("add a
    note", not "add the note"); None for any other outcome. Calls with equal keys are said
    once (:func:`said_together`)."""
    content = message.text
    if not content.lstrip().startswith("Cancelled:"):
        return None
    action = _action(name, args, spoken or spoken_name(name))
    for one in ("add the note", "delete the note"):
        if action == one:
            action = one.replace(" the ", " a ")
    return action, _reason(content)


def said_together(paragraphs: Sequence[tuple[str, CancelKey | None]]) -> list[str]:
    """The reply's paragraphs, with the cancellations of the same kind and reason said once.

    Two calls cancelled alike read "Both requests to add a note were cancelled (AI actions
    ...). Nothing was done." at the first one's place (was the same sentence twice); three
    or more "All 3 requests ...". Others stay as they are, in order.

    Args:
        paragraphs: ``(text, key)`` per call, in order; ``key`` from :func:`cancelled_key`.

    Returns:
        The paragraphs to say.
    """
    counts = Counter(key for _text, key in paragraphs if key is not None)
    said: list[str] = []
    done: set[CancelKey] = set()
    for text, key in paragraphs:
        if key is None or counts[key] == 1:
            said.append(text)
        elif key not in done:
            done.add(key)
            count = counts[key]
            lead = "Both requests" if count == 2 else f"All {count} requests"
            said.append(reveal_hidden(_cancelled(f"{lead} to {key[0]} were", key[1])))
    return said
